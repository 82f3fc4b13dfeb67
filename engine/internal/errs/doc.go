// Package errs holds engine's sentinel errors, so that engine's internal
// packages can wrap them as engine does: package engine exports each under
// its own name (engine.ErrNumerical is errs.Numerical) and documents it
// there.
package errs
