package fio

import "github.com/blkmq/blkmq/internal/echo"

// clipEcho returns s cut for an error message (echo.Clip: at most echo.Max bytes
// and the length).
func clipEcho(s string) string { return echo.Clip(s) }
