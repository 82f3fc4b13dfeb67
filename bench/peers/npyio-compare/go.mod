module npybench

go 1.26

require (
	github.com/manifoldlab/manifold v0.0.0
	github.com/sbinet/npyio v0.6.0
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
)

replace github.com/manifoldlab/manifold => ../../..
