package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Every type of the repository has one receiver name across its methods
// (the house rule of Go Code Review Comments, "Receiver Names").
func TestOneReceiverNamePerType(t *testing.T) {
	names := map[string]map[string]string{} // dir.type → receiver → a place
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) == 0 || len(fn.Recv.List[0].Names) == 0 {
				continue
			}
			typ := fn.Recv.List[0].Type
			if st, ok := typ.(*ast.StarExpr); ok {
				typ = st.X
			}
			switch x := typ.(type) {
			case *ast.IndexExpr:
				typ = x.X
			case *ast.IndexListExpr:
				typ = x.X
			}
			id, ok := typ.(*ast.Ident)
			if !ok {
				continue
			}
			key := filepath.Dir(path) + "." + id.Name
			if names[key] == nil {
				names[key] = map[string]string{}
			}
			names[key][fn.Recv.List[0].Names[0].Name] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 50 {
		t.Fatalf("only %d types with methods found under %s", len(names), root)
	}
	for key, recv := range names {
		if len(recv) > 1 {
			var all []string
			for r, at := range recv {
				all = append(all, r+" ("+at+")")
			}
			sort.Strings(all)
			t.Errorf("%s has receivers %v", key, all)
		}
	}
}
