// Command parlab-nop is the smallest Go program: it starts and exits 0.
// It is the spawn lab's yardstick (method forkexec-go): what any Go child
// pays to start, so a run shows how far parlab-worker, parlab-session and
// parlab are from it. make build puts it beside parlab.
package main

func main() {}
