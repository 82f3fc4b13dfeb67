module github.com/manifoldlab/manifold

go 1.24.0

require (
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/netlib v0.0.0-20190313105609-8cb42192e0e0
)

require golang.org/x/exp v0.0.0-20250606033433-dcc06ee1d476 // indirect
