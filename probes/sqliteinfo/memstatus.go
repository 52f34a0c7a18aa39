package main

// The build's memory statistics and threading mode are not visible through
// SQL, so ask the SQLite that go-sqlite3 linked into this binary directly.

/*
extern int sqlite3_status64(int op, long long *cur, long long *hi, int reset);
extern int sqlite3_threadsafe(void);
*/
import "C"

// memStatusOn reports whether SQLite counts memory (SQLITE_CONFIG_MEMSTATUS):
// with it on, every allocation takes one global mutex. When it is off the
// counter stays 0 however much is allocated.
func memStatusOn() bool {
	var cur, hi C.longlong
	C.sqlite3_status64(0 /* SQLITE_STATUS_MEMORY_USED */, &cur, &hi, 0)
	return cur > 0
}

// threadsafe is sqlite3_threadsafe(): 0 single-thread, 1 serialized, 2 multi-thread.
func threadsafe() int { return int(C.sqlite3_threadsafe()) }
