package backend_test

import (
	"testing"

	"github.com/manifoldlab/manifold/backend"
)

// TestNativeAndLocal: the pure-Go backend is not native and is the local
// one in every build; the OpenBLAS backend (under -tags openblas) is native.
func TestNativeAndLocal(t *testing.T) {
	if backend.Native(backend.PureGo) {
		t.Error("Native(PureGo) = true")
	}
	if backend.Local() != backend.PureGo {
		t.Errorf("Local() = %s, want purego", backend.Local().Name())
	}
	active := backend.Active()
	if want := active.Name() == "openblas"; backend.Native(active) != want {
		t.Errorf("Native(%s) = %v, want %v", active.Name(), backend.Native(active), want)
	}
}
