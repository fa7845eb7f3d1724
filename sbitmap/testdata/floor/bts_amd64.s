#include "textflag.h"

// func bts(addr *uint64, bit uint64) bool
TEXT ·bts(SB), NOSPLIT, $0-17
	MOVQ addr+0(FP), AX
	MOVQ bit+8(FP), BX
	LOCK
	BTSQ BX, (AX)
	SETCS ret+16(FP)
	RET

// func btr(addr *uint64, bit uint64) bool
TEXT ·btr(SB), NOSPLIT, $0-17
	MOVQ addr+0(FP), AX
	MOVQ bit+8(FP), BX
	LOCK
	BTRQ BX, (AX)
	SETCS ret+16(FP)
	RET
