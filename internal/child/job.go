package child

import (
	"encoding/gob"
	"io"
)

// WriteJob and ReadJob are the one codec of a child's job, what its parent
// hands it to do: encoding/gob, so a string that is not UTF-8 (a path, a
// filter's value) reaches the child unchanged, where JSON would replace
// its bytes. The query workers read theirs from the shared region, an FTP
// session and a load client theirs from a pipe.
func WriteJob(w io.Writer, job any) error { return gob.NewEncoder(w).Encode(job) }

// ReadJob decodes a job that WriteJob wrote into job (a pointer).
func ReadJob(r io.Reader, job any) error { return gob.NewDecoder(r).Decode(job) }
