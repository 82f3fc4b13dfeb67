// Package enginetest holds the one table of the engine's methods and what
// each accepts, for the code that runs every method — the engine's
// reliability, cancellation and benchmark tests, and the programs of
// bench/ — as backendtest is for the backends. A method is added to the
// engine's tests and tables by one line in Methods.
//
// Each Method fits through the engine's exported API only: its Fit copies
// the Settings the method reads (Dim, K, Eps, Labels, Disconnected, Seed,
// Options) into the method's settings struct, zero values leaving the
// method's defaults, and passes the struct to Settings.Tune, when set, for
// the settings only that method has. Variants are the settings that take
// other code paths of a method (another solver, float32 storage).
//
//	for _, m := range enginetest.Methods {
//		model, err := m.Fit(ctx, x, enginetest.Settings{Dim: 2})
//		…
//	}
package enginetest
