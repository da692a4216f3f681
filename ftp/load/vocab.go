package load

import "parlab/internal/names"

// Arrivals is how the users' arrivals are spaced (Config.Arrivals).
type Arrivals int

const (
	Fixed   Arrivals = iota // Config.Delay apart
	Poisson                 // exponential gaps of mean Config.Delay
)

var arrivalsTable = names.Table{
	{Name: "fixed", Help: "--delay apart"},
	{Name: "poisson", Help: "exponential gaps of mean --delay"},
}

func (a Arrivals) String() string { return arrivalsTable.Name(int(a)) }

// ArrivalsHelp lists the arrivals and what each is, for help text.
func ArrivalsHelp() string { return arrivalsTable.Help() }

// MarshalText and UnmarshalText name Arrivals in flags (flag.TextVar) and
// JSON.
func (a Arrivals) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

func (a *Arrivals) UnmarshalText(b []byte) error {
	return names.Unmarshal(arrivalsTable, "arrivals", b, a)
}

// Clients is what runs each user (Config.Clients).
type Clients int

const (
	ClientGoroutines Clients = iota // a goroutine each
	// ClientProcesses: each its own process (this program in a hidden
	// client mode, see ClientArg), as the reference forked its clients.
	ClientProcesses
)

var clientsTable = names.Table{
	{Name: "goroutines", Help: "a goroutine a client"},
	{Name: "processes", Help: "a process a client, as the reference forked its clients"},
}

func (c Clients) String() string { return clientsTable.Name(int(c)) }

// ClientsHelp lists the ways to run clients, for help text.
func ClientsHelp() string { return clientsTable.Help() }

// MarshalText and UnmarshalText name Clients in flags (flag.TextVar) and
// JSON.
func (c Clients) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

func (c *Clients) UnmarshalText(b []byte) error {
	return names.Unmarshal(clientsTable, "clients", b, c)
}
