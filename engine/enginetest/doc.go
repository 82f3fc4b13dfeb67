// Package enginetest presents the engine's methods (engine.Methods) and
// what each accepts, for the code that runs every method — the engine's
// reliability, cancellation and benchmark tests, and the programs of
// bench/ — as backendtest is for the backends. A method added to the
// engine's table is in Methods, and so in those tests, with no line here.
//
// Each Method fits through the engine's exported API only: its Fit copies
// the Settings the method has fields for (Dim, K, Eps, Labels,
// Disconnected, Seed, Options; the capability flags of Method say which)
// into the method's settings struct, zero values leaving the
// method's defaults, and passes the struct to Settings.Tune, when set, for
// the settings only that method has. Variants are the settings that take
// other code paths of a method (another solver, float32 storage).
//
//	for _, m := range enginetest.Methods {
//		model, err := m.Fit(ctx, x, enginetest.Settings{Dim: 2})
//		…
//	}
package enginetest
