module parlab

go 1.26.0

require (
	github.com/valyala/fastjson v1.6.10
	golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4
	golang.org/x/sys v0.50.0
)
