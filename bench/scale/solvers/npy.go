package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// readNpy reads a C-ordered little-endian float64 .npy file (the format
// make_matrices.py writes) and returns its shape and data.
func readNpy(path string) (rows, cols int, data []float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, 8)
	if _, err := io.ReadFull(r, magic); err != nil {
		return 0, 0, nil, err
	}
	if string(magic[:6]) != "\x93NUMPY" {
		return 0, 0, nil, fmt.Errorf("%s: not a .npy file", path)
	}
	var hlen int
	if magic[6] == 1 {
		var l uint16
		if err := binary.Read(r, binary.LittleEndian, &l); err != nil {
			return 0, 0, nil, err
		}
		hlen = int(l)
	} else {
		var l uint32
		if err := binary.Read(r, binary.LittleEndian, &l); err != nil {
			return 0, 0, nil, err
		}
		hlen = int(l)
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return 0, 0, nil, err
	}
	h := string(hdr)
	if !strings.Contains(h, "'descr': '<f8'") || !strings.Contains(h, "'fortran_order': False") {
		return 0, 0, nil, fmt.Errorf("%s: need C-ordered <f8, header %s", path, h)
	}
	m := regexp.MustCompile(`'shape': \((\d+),\s*(\d*)\)`).FindStringSubmatch(h)
	if m == nil {
		return 0, 0, nil, fmt.Errorf("%s: no shape in header %s", path, h)
	}
	rows, _ = strconv.Atoi(m[1])
	cols = 1
	if m[2] != "" {
		cols, _ = strconv.Atoi(m[2])
	}
	data = make([]float64, rows*cols)
	buf := make([]byte, 8*4096)
	for i := 0; i < len(data); {
		nb := min(len(buf), 8*(len(data)-i))
		if _, err := io.ReadFull(r, buf[:nb]); err != nil {
			return 0, 0, nil, err
		}
		for k := 0; k < nb; k += 8 {
			data[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[k:]))
			i++
		}
	}
	return rows, cols, data, nil
}
