// Package testmode holds the one switch between the two tiers of the module's tests.
//
// `go test ./...` runs the quick tier: every code path on small inputs, in about a minute and a
// half on 2 cores. MANIFOLD_TEST=full go test ./... runs every test at its full size as well: the
// papers' tables on the real data in ../shared/data, the reliability sweeps over every method and
// the large inputs (4 to 5 minutes on 2 cores). CI's pure-Go step runs the full tier; its OpenBLAS
// and race steps pass -short, which is always the quick tier.
//
// A test that only runs in the full tier calls Skip first; a test that shrinks its input asks Quick.
package testmode
