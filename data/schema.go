package data

// Header is the public "Sales Records" schema, in its usual column order.
var Header = []string{
	"Region", "Country", "Item Type", "Sales Channel", "Order Priority",
	"Order Date", "Order ID", "Ship Date", "Units Sold", "Unit Price",
	"Unit Cost", "Total Revenue", "Total Cost", "Total Profit",
}

// Region lists its countries. Every country is equally likely in a generated
// row, so a region's share of rows is its share of the 185 countries: Europe
// holds 48, about 25.9% (the reference's answer was 259,402 of 1,000,000).
type Region struct {
	Name      string
	Countries []string
}

// Regions are the data set's 7 regions and 185 countries.
var Regions = []Region{
	{"Asia", []string{
		"Bangladesh", "Bhutan", "Brunei", "Cambodia", "China", "India", "Indonesia",
		"Japan", "Kazakhstan", "Kyrgyzstan", "Laos", "Malaysia", "Maldives",
		"Mongolia", "Myanmar", "Nepal", "North Korea", "Philippines", "Singapore",
		"South Korea", "Sri Lanka", "Taiwan", "Tajikistan", "Thailand",
		"Turkmenistan", "Uzbekistan", "Vietnam", "East Timor",
	}},
	{"Australia and Oceania", []string{
		"Australia", "Fiji", "Kiribati", "Marshall Islands",
		"Federated States of Micronesia", "Nauru", "New Zealand", "Palau",
		"Papua New Guinea", "Samoa", "Solomon Islands", "Tonga", "Tuvalu", "Vanuatu",
	}},
	{"Central America and the Caribbean", []string{
		"Antigua and Barbuda", "The Bahamas", "Barbados", "Belize", "Costa Rica",
		"Cuba", "Dominica", "Dominican Republic", "El Salvador", "Grenada",
		"Guatemala", "Haiti", "Honduras", "Jamaica", "Nicaragua", "Panama",
		"Saint Kitts and Nevis", "Saint Lucia", "Saint Vincent and the Grenadines",
		"Trinidad and Tobago",
	}},
	{"Europe", []string{
		"Albania", "Andorra", "Armenia", "Austria", "Belarus", "Belgium",
		"Bosnia and Herzegovina", "Bulgaria", "Croatia", "Cyprus", "Czech Republic",
		"Denmark", "Estonia", "Finland", "France", "Georgia", "Germany", "Greece",
		"Hungary", "Iceland", "Ireland", "Italy", "Kosovo", "Latvia",
		"Liechtenstein", "Lithuania", "Luxembourg", "Macedonia", "Malta", "Moldova",
		"Monaco", "Montenegro", "Netherlands", "Norway", "Poland", "Portugal",
		"Romania", "Russia", "San Marino", "Serbia", "Slovakia", "Slovenia", "Spain",
		"Sweden", "Switzerland", "Ukraine", "United Kingdom", "Vatican City",
	}},
	{"Middle East and North Africa", []string{
		"Afghanistan", "Algeria", "Azerbaijan", "Bahrain", "Egypt", "Iran", "Iraq",
		"Israel", "Jordan", "Kuwait", "Lebanon", "Libya", "Morocco", "Oman",
		"Pakistan", "Qatar", "Saudi Arabia", "Syria", "Tunisia", "Turkey",
		"United Arab Emirates", "Yemen",
	}},
	{"North America", []string{
		"Canada", "Greenland", "Mexico", "United States of America",
	}},
	{"Sub-Saharan Africa", []string{
		"Angola", "Benin", "Botswana", "Burkina Faso", "Burundi", "Cameroon",
		"Cape Verde", "Central African Republic", "Chad", "Comoros",
		"Cote d'Ivoire", "Democratic Republic of the Congo", "Djibouti",
		"Equatorial Guinea", "Eritrea", "Ethiopia", "Gabon", "Ghana", "Guinea",
		"Guinea-Bissau", "Kenya", "Lesotho", "Liberia", "Madagascar", "Malawi",
		"Mali", "Mauritania", "Mauritius", "Mozambique", "Namibia", "Niger",
		"Nigeria", "Republic of the Congo", "Rwanda", "Sao Tome and Principe",
		"Senegal", "Seychelles", "Sierra Leone", "Somalia", "South Africa",
		"South Sudan", "Sudan", "Swaziland", "Tanzania", "The Gambia", "Togo",
		"Uganda", "Zambia", "Zimbabwe",
	}},
}

// Item is an item type with its fixed unit price and cost, in cents.
type Item struct {
	Name        string
	Price, Cost int64
}

// Items are the data set's 12 item types.
var Items = []Item{
	{"Baby Food", 25528, 15942},
	{"Beverages", 4745, 3179},
	{"Cereal", 20570, 11711},
	{"Clothes", 10928, 3584},
	{"Cosmetics", 43720, 26333},
	{"Fruits", 933, 692},
	{"Household", 66827, 50254},
	{"Meat", 42189, 36469},
	{"Office Supplies", 65121, 52496},
	{"Personal Care", 8173, 5667},
	{"Snacks", 15258, 9744},
	{"Vegetables", 15406, 9093},
}
