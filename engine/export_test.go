package engine

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Hooks for the tests of package engine_test, which see only the exported
// API.

// SetLOBPCGLandmarks sets the size of LLE's and LTSA's LOBPCG coarse
// space and returns a function that restores it.
func SetLOBPCGLandmarks(n int) (restore func()) {
	old := lobpcgLandmarks
	lobpcgLandmarks = n
	return func() { lobpcgLandmarks = old }
}

// FmtBytes is the byte count as the engine's errors print it.
var FmtBytes = fmtBytes

// ModelLimit is the largest |value| Load accepts in a model-file array.
var ModelLimit = modelLimit

// RelData is the data of the reliability tests: n points of a noisy sheet
// curled in d ≥ 3 dimensions, and three class labels along it.
var RelData = relData

// CurvedData is the curved data of the supervised tests.
var CurvedData = curvedData

// The test helpers package engine_test shares with package engine's tests
// (helpers_test.go).
var (
	LoadSharedLabels  = loadSharedLabels
	SharedDataDir     = sharedDataDir
	LoadShared        = loadShared
	DigitRows         = digitRows
	ColsUpToSign      = colsUpToSign
	MaxAbsDiff        = maxAbsDiff
	Reloaded          = reloaded
	Transformed       = transformed
	CheckReloaded     = checkReloaded
	CheckMapsTraining = checkMapsTraining
	RefFisher         = refFisher
	ClassBlobs        = classBlobs
	CentredCols       = centredCols
	KNNCSR            = knnCSR
)

// Refusal is settings that Fit must refuse, with the error to wrap.
type Refusal[S any] = refusal[S]

// CheckRefusals fits x with the settings of every case and checks the
// error.
func CheckRefusals[S, M any](t testing.TB, fit func(S, context.Context, mat.Matrix) (M, error), x mat.Matrix, cases []Refusal[S]) {
	t.Helper()
	checkRefusals(t, fit, x, cases)
}

// MustFit fits x by fit within ctx, failing the test on an error.
func MustFit[M any](t testing.TB, ctx context.Context, fit func(context.Context, mat.Matrix) (M, error), x mat.Matrix) M {
	t.Helper()
	return mustFit(t, ctx, fit, x)
}
