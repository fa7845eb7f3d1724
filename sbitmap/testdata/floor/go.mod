// Module floor is a scratch benchmark kept next to the sbitmap benchmarks' raw
// outputs: it compares a get/put pair done with LOCK BTS/BTR in amd64 assembly
// (one locked instruction each, but a call the compiler cannot inline) with the same
// pair in sync/atomic. It is a separate module under testdata, so `go build ./...`
// and `go test ./...` of blkmq never see it. Run: cd sbitmap/testdata/floor && go test -bench .
module floor

go 1.26.0

require golang.org/x/sys v0.50.0
