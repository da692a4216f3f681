package main

import (
	"encoding/json"
	"flag"

	"parlab/lab"
)

func (a *app) spawnLab(args []string) error {
	fs := flag.NewFlagSet("spawn", flag.ContinueOnError)
	n := fs.Int("n", 256, "creations per round (the 2004 test made 256)")
	rounds := fs.Int("rounds", 10, "rounds per method and mode")
	methodsF := fs.String("methods", "goroutine,thread,fork,forkexec-self,forkexec-worker,forkexec-session,forkexec-session-plain,forkexec-go,forkexec-true", "methods to time, comma-separated, of "+lab.MethodHelp()+" (forkexec-go needs parlab-nop, which make build puts beside parlab; mpirun: --methods mpirun --modes batch --n 2)")
	modesF := fs.String("modes", "batch,serial,create", "timing modes, comma-separated, of "+lab.ModeHelp())
	touch := fs.Int("touch", 0, "touch this many MiB in the parent first: fork copies page tables, so its cost grows with memory")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("spawn takes no arguments")
	}
	if *n < 1 || *rounds < 1 || *touch < 0 {
		return usagef("spawn: --n and --rounds must be at least 1, --touch not negative")
	}
	c := lab.Config{N: *n, Rounds: *rounds, TouchMB: *touch}
	for _, s := range splitList(*methodsF) {
		m, err := lab.ParseMethod(s)
		if err != nil {
			return usagef("spawn --methods: %v", err)
		}
		c.Methods = append(c.Methods, m)
	}
	for _, s := range splitList(*modesF) {
		m, err := lab.ParseMode(s)
		if err != nil {
			return usagef("spawn --modes: %v", err)
		}
		c.Modes = append(c.Modes, m)
	}
	rep, err := lab.Run(c)
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		a.stdout.Write(append(b, '\n'))
		return nil
	}
	rep.WriteText(a.stdout)
	return nil
}
