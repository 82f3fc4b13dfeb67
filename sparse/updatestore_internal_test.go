package sparse

import "testing"

// The update matrices' store serves a request from its own size class or
// from a free buffer of one of the next two (at most eight times the
// length asked for, storage already held), and keeps no more free storage
// than its limit.
func TestUpdateStoreReuse(t *testing.T) {
	u := &updateStore{limit: 1 << 12}
	b := u.get(1000) // class 2¹⁰
	if len(b) != 1000 || cap(b) != 1024 {
		t.Fatalf("get(1000): len %d, cap %d", len(b), cap(b))
	}
	b[999] = 7
	u.put(b)
	if c := u.get(300); cap(c) != 1024 || &c[:1000][999] != &b[999] { // class 2⁹: from the next class up
		t.Errorf("get(300) after put of 1024 entries: cap %d, not the free buffer", cap(c))
	} else {
		u.put(c)
	}
	if c := u.get(100); cap(c) != 128 { // class 2⁷: 2¹⁰ is three classes up, too large to lend
		t.Errorf("get(100): cap %d, want a fresh 128", cap(c))
	}
	if u.freeCap != 1024 {
		t.Errorf("free storage %d entries, want the 1024 put back", u.freeCap)
	}
	big := u.get(1 << 12)
	u.put(big) // over the limit with what is free already: left to the collector
	if u.freeCap != 1024 || len(u.free[12]) != 0 {
		t.Errorf("free storage %d entries, %d buffers of 2¹² kept past the limit %d", u.freeCap, len(u.free[12]), u.limit)
	}
}
