package engine

// Hooks for the tests of package engine_test, which see only the exported
// API.

// FmtBytes is the byte count as the engine's errors print it.
var FmtBytes = fmtBytes

// SquaredArrays names the model-file arrays that hold squares (bounded by
// MaxModelSquared instead of the square root of the largest float64).
var SquaredArrays = squaredArrays

// MaxModelSquared bounds the values of the SquaredArrays of a model file.
var MaxModelSquared = maxModelSquared

// RelData is the data of the reliability tests: n points of a noisy sheet
// curled in d ≥ 3 dimensions, and three class labels along it.
var RelData = relData

// CurvedData is the curved data of the supervised tests.
var CurvedData = curvedData
