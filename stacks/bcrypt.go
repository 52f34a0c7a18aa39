package stacks

// The seed's password hashes come from libxcrypt (Debian's libcrypt, the C
// library's crypt), the maintained bcrypt behind crypt_r: Go's x/crypto
// bcrypt takes no salt, and a seed must be the same bytes every time.

/*
#cgo LDFLAGS: -lcrypt
#include <crypt.h>
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// bcryptSetting is the "$2b$10$" + 22-character salt string that
// crypt_gensalt_rn makes of salt's 16 bytes at HashCost.
func bcryptSetting(salt [16]byte) (string, error) {
	prefix := C.CString(HashPrefix)
	defer C.free(unsafe.Pointer(prefix))
	out := (*C.char)(C.malloc(C.CRYPT_GENSALT_OUTPUT_SIZE))
	defer C.free(unsafe.Pointer(out))
	if C.crypt_gensalt_rn(prefix, C.ulong(HashCost), (*C.char)(unsafe.Pointer(&salt[0])), C.int(len(salt)),
		out, C.CRYPT_GENSALT_OUTPUT_SIZE) == nil {
		return "", fmt.Errorf("crypt_gensalt_rn %s cost %d failed", HashPrefix, HashCost)
	}
	return C.GoString(out), nil
}

// bcryptHash is the standard $2b$ string of password, salted with salt's
// 16 bytes at HashCost.
func bcryptHash(password string, salt [16]byte) (string, error) {
	setting, err := bcryptSetting(salt)
	if err != nil {
		return "", err
	}
	out, ok := cryptRN(password, setting)
	if !ok {
		return "", fmt.Errorf("crypt_rn %s cost %d failed", HashPrefix, HashCost)
	}
	return out, nil
}

// cryptRN is crypt_rn(password, setting): the hash, or false.
func cryptRN(password, setting string) (string, bool) {
	cs := C.CString(setting)
	defer C.free(unsafe.Pointer(cs))
	pw := C.CString(password)
	defer C.free(unsafe.Pointer(pw))
	// struct crypt_data is 32 KiB: on the C heap, not Go's stack.
	data := C.calloc(1, C.sizeof_struct_crypt_data)
	defer C.free(data)
	out := C.crypt_rn(pw, cs, data, C.sizeof_struct_crypt_data)
	if out == nil {
		return "", false
	}
	return C.GoString(out), true
}

// CheckPassword says whether password matches hash, a crypt string such as
// the seed's: crypt_rn with the hash as its setting gives the hash back.
// For the lab's own tests (a fixture stack), not for the stacks.
func CheckPassword(password, hash string) bool {
	out, ok := cryptRN(password, hash)
	return ok && out == hash
}
