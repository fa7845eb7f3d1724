package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version returns the module version from the build information ("(devel)" for a
// build from a checkout).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	return v + " " + bi.GoVersion
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the blkmq version and the Go version it was built with",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "blkmq", version())
		},
	}
}
