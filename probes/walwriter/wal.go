package walwriter

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
)

// WALSize is the size of path's -wal file in bytes (0 when there is none).
func WALSize(dbPath string) int64 {
	fi, err := os.Stat(dbPath + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Index is the part of a WAL database's -shm file (the wal-index) that tells
// how far checkpoints have got. Both are frame counts; SQLite writes them in
// the machine's byte order.
type Index struct {
	MxFrame   uint32 // frames in the WAL (WalIndexHdr.mxFrame, offset 16)
	NBackfill uint32 // frames already copied into the database (WalCkptInfo.nBackfill, offset 96)
}

// ReadIndex reads the -shm file beside dbPath.
func ReadIndex(dbPath string) (Index, error) {
	f, err := os.Open(dbPath + "-shm")
	if err != nil {
		return Index{}, err
	}
	defer f.Close()
	var b [100]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return Index{}, errors.New(dbPath + "-shm: shorter than a wal-index header")
		}
		return Index{}, err
	}
	return Index{MxFrame: binary.NativeEndian.Uint32(b[16:]), NBackfill: binary.NativeEndian.Uint32(b[96:])}, nil
}
