package neighbors

import (
	"math/rand/v2"
	"testing"
)

// reorder moves every row and squared norm to its place for permutations
// of every cycle structure (fixed points, 2-cycles, one long cycle, random)
// and segment lengths down to one position, and restore puts them back.
func TestReorderCycles(t *testing.T) {
	const n, dim = 1000, 3
	rng := rand.New(rand.NewPCG(3, 4))
	perms := map[string][]int32{}
	id := make([]int32, n)
	swaps := make([]int32, n)
	shift := make([]int32, n)
	for i := range id {
		id[i] = int32(i)
		swaps[i] = int32(i ^ 1)
		shift[i] = int32((i + 1) % n)
	}
	perms["identity"], perms["2-cycles"], perms["one cycle"] = id, swaps, shift
	for r := 0; r < 3; r++ {
		p := append([]int32(nil), id...)
		rng.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
		perms["random"+string(rune('a'+r))] = p
	}
	for name, order := range perms {
		for _, seg := range []int{1, 2, 3, 7, 64, n, reorderSegment} {
			x := make([]float32, n*dim)
			sq := make([]float32, n)
			for i := 0; i < n; i++ {
				for c := 0; c < dim; c++ {
					x[i*dim+c] = float32(i*dim + c)
				}
				sq[i] = float32(-i)
			}
			d := &dense32{rows: n, dim: dim, x: x, sq: sq, inPlace: true}
			d.reorder(append([]int32(nil), order...), seg)
			for p := 0; p < n; p++ {
				src := int(order[p])
				if d.sq[p] != float32(-src) || d.x[p*dim] != float32(src*dim) || d.x[p*dim+dim-1] != float32(src*dim+dim-1) {
					t.Fatalf("%s, segments of %d: row %d holds %v (norm %v), want row %d", name, seg, p, d.row(p), d.sq[p], src)
				}
			}
			d.restore()
			for i := 0; i < n*dim; i++ {
				if x[i] != float32(i) {
					t.Fatalf("%s, segments of %d: value %d is %v after restore", name, seg, i, x[i])
				}
			}
			for i := 0; i < n; i++ {
				if sq[i] != float32(-i) {
					t.Fatalf("%s, segments of %d: norm %d is %v after restore", name, seg, i, sq[i])
				}
			}
		}
	}
}
