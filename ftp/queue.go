package ftp

import (
	"io"
	"net"
	"sync"
	"time"
)

// QueuedNotice is how long an accepted connection may wait for its session
// to start before it hears "120 Service ready in N minutes" (RFC 959: the
// server's first reply may be 120, and 220 follows when the session
// starts). So every connection hears something within a second: 220, 120
// or 421.
const QueuedNotice = 500 * time.Millisecond

// waiting is an accepted, admitted connection whose session has not
// started: batch's next batch, the pool's queue, the processes model's
// spawner. Its timer says 120 once QueuedNotice has passed; take stops it.
type waiting struct {
	c       net.Conn
	release func() // gives back its place under the connection limits
	mu      sync.Mutex
	taken   bool
	timer   *time.Timer
}

func hold(c net.Conn, release func()) *waiting {
	w := &waiting{c: c, release: release}
	w.timer = time.AfterFunc(QueuedNotice, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.taken {
			c.SetWriteDeadline(time.Now().Add(time.Second))
			io.WriteString(c, "120 Service ready in 1 minute or less; your session is queued.\r\n")
		}
	})
	return w
}

// take marks the session started: no 120 comes after this returns (one
// being written is finished first, so it precedes the session's 220).
func (w *waiting) take() net.Conn {
	w.mu.Lock()
	w.taken = true
	w.mu.Unlock()
	w.timer.Stop()
	return w.c
}

// refuse answers a waiting connection that will not be served 421.
func (w *waiting) refuse(reply string) {
	refuse(w.take(), reply)
	w.release()
}

// connQueue is a FIFO of waiting connections, bounded by limit (0: only by
// the connection limits, which admit applies before anything is queued).
// Its methods are safe for concurrent use.
type connQueue struct {
	mu     sync.Mutex
	items  []*waiting
	limit  int
	closed bool
	ready  chan struct{} // a token while items is non-empty or the queue closed
}

func newConnQueue(limit int) *connQueue {
	return &connQueue{limit: limit, ready: make(chan struct{}, 1)}
}

func (q *connQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// push queues w; false if the queue is full or closed.
func (q *connQueue) push(w *waiting) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || (q.limit > 0 && len(q.items) >= q.limit) {
		return false
	}
	q.items = append(q.items, w)
	q.signal()
	return true
}

// pop waits for connections and takes up to n of them (n ≤ 0: all that
// wait), oldest first; nil once the queue is closed.
func (q *connQueue) pop(n int) []*waiting {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return nil
		}
		if k := len(q.items); k > 0 {
			if n <= 0 || n > k {
				n = k
			}
			out := append([]*waiting(nil), q.items[:n]...)
			q.items = append(q.items[:0], q.items[n:]...)
			if len(q.items) > 0 {
				q.signal()
			}
			q.mu.Unlock()
			return out
		}
		q.mu.Unlock()
		<-q.ready
	}
}

// close ends the queue, wakes every pop, and answers what still waits 421.
func (q *connQueue) close(reply string) {
	q.mu.Lock()
	left := q.items
	q.items, q.closed = nil, true
	close(q.ready) // under mu: signal runs only under mu, and never once closed
	q.mu.Unlock()
	for _, w := range left {
		w.refuse(reply)
	}
}
