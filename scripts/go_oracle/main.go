// Command go_oracle type-checks Go packages of a source tree with go/types and
// prints, as JSON, every package-level object, method and field the checked
// packages define together with the lines that use it, and the call graph
// (caller definition → callee definitions). It is the exact oracle of the
// references benchmark: use sites are what go/types says, not what a name
// match says. Test files are left out; cgo is off. No network.
//
// Usage: go run ./scripts/go_oracle ROOT PKG...
//
//	ROOT: a GOROOT-style src tree (import path = directory below ROOT,
//	vendored packages under ROOT/vendor); PKG: import path prefixes whose
//	packages (and everything they import) are checked.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type object struct {
	Name  string   `json:"name"`
	Kind  string   `json:"kind"` // func, method, type, var, const, field
	Pkg   string   `json:"pkg"`
	Recv  string   `json:"recv,omitempty"` // the named type of a method or field
	Iface bool     `json:"iface,omitempty"`
	Def   string   `json:"def"` // file:line of the name
	Uses  []string `json:"uses"`
	// ValueReads: plain reads of the name (`f := logf`, `x = maxSize`), which no reference index records.
	ValueReads int `json:"value_reads"`
}

type output struct {
	Objects []*object           `json:"objects"`
	Calls   map[string][]string `json:"calls"` // caller def → callee defs (functions and methods)
	Files   []string            `json:"files"` // every checked file
	// Implements: a package-level interface's def → the defs of the package-level named types (not interfaces)
	// whose value or pointer has its method set (types.Implements); empty interfaces left out.
	Implements map[string][]string `json:"implements"`
}

type checker struct {
	root  string
	fset  *token.FileSet
	ctx   build.Context
	pkgs  map[string]*types.Package
	objs  map[types.Object]*object
	calls map[string]map[string]bool
	files []string
}

func (c *checker) rel(pos token.Pos) (string, bool) {
	p := c.fset.Position(pos)
	r, err := filepath.Rel(c.root, p.Filename)
	if err != nil || strings.HasPrefix(r, "..") {
		return "", false
	}
	return fmt.Sprintf("%s:%d", filepath.ToSlash(r), p.Line), true
}

func (c *checker) dirOf(path string) string {
	d := filepath.Join(c.root, path)
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return filepath.Join(c.root, "vendor", path)
}

func (c *checker) Import(path string) (*types.Package, error) {
	return c.ImportFrom(path, "", 0)
}

func (c *checker) ImportFrom(path, _ string, _ types.ImportMode) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if p, ok := c.pkgs[path]; ok {
		if p == nil {
			return nil, fmt.Errorf("import cycle or failure at %s", path)
		}
		return p, nil
	}
	c.pkgs[path] = nil
	dir := c.dirOf(path)
	bp, err := c.ctx.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, f := range bp.GoFiles {
		af, err := parser.ParseFile(c.fset, filepath.Join(dir, f), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, af)
		if r, ok := c.rel(af.Package); ok {
			c.files = append(c.files, strings.SplitN(r, ":", 2)[0])
		}
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: c, Error: func(error) {}}
	pkg, _ := conf.Check(path, c.fset, files, info)
	c.record(pkg, files, info)
	c.pkgs[path] = pkg
	return pkg, nil
}

// record notes the package's objects and every use of any recorded object.
func (c *checker) record(pkg *types.Package, files []*ast.File, info *types.Info) {
	for _, o := range info.Defs {
		c.describe(o)
	}
	// Names a reference index records: callees, selected members and type names (a plain read of a
	// variable, constant or function value is left out, counted apart).
	named := map[*ast.Ident]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				named[x.Sel] = true
			case *ast.CallExpr:
				if id, ok := unparen(x.Fun).(*ast.Ident); ok {
					named[id] = true
				}
			}
			return true
		})
	}
	for id, o := range info.Uses {
		ob := c.describe(o)
		if ob == nil {
			continue
		}
		at, ok := c.rel(id.Pos())
		if !ok {
			continue
		}
		if _, isType := o.(*types.TypeName); isType || named[id] {
			ob.Uses = append(ob.Uses, at)
		} else {
			ob.ValueReads++
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			from := c.describe(info.Defs[fd.Name])
			if from == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var id *ast.Ident
				switch f := unparen(call.Fun).(type) {
				case *ast.Ident:
					id = f
				case *ast.SelectorExpr:
					id = f.Sel
				case *ast.IndexExpr:
					if x, ok := f.X.(*ast.Ident); ok {
						id = x
					} else if s, ok := f.X.(*ast.SelectorExpr); ok {
						id = s.Sel
					}
				}
				if id == nil {
					return true
				}
				if fn, ok := info.Uses[id].(*types.Func); ok {
					if to := c.describe(fn); to != nil {
						if c.calls[from.Def] == nil {
							c.calls[from.Def] = map[string]bool{}
						}
						c.calls[from.Def][to.Def] = true
					}
				}
				return true
			})
		}
	}
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// describe returns the record of a package-level object, method or field defined in the tree (nil otherwise).
func (c *checker) describe(o types.Object) *object {
	if o == nil || o.Pkg() == nil {
		return nil
	}
	if f, ok := o.(*types.Func); ok {
		o = f.Origin()
	}
	if v, ok := o.(*types.Var); ok {
		o = v.Origin()
	}
	if ob, ok := c.objs[o]; ok {
		return ob
	}
	def, ok := c.rel(o.Pos())
	if !ok {
		return nil
	}
	ob := &object{Name: o.Name(), Pkg: o.Pkg().Path(), Def: def, Uses: []string{}}
	switch x := o.(type) {
	case *types.Func:
		sig := x.Type().(*types.Signature)
		if sig.Recv() == nil {
			if o.Parent() != o.Pkg().Scope() {
				return nil
			}
			ob.Kind = "func"
		} else {
			ob.Kind = "method"
			t := sig.Recv().Type()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			if n, ok := t.(*types.Named); ok {
				ob.Recv = n.Obj().Name()
				_, ob.Iface = n.Underlying().(*types.Interface)
			} else {
				return nil // a method of an unnamed interface
			}
		}
	case *types.TypeName:
		if o.Parent() != o.Pkg().Scope() {
			return nil
		}
		ob.Kind = "type"
	case *types.Const:
		if o.Parent() != o.Pkg().Scope() {
			return nil
		}
		ob.Kind = "const"
	case *types.Var:
		if x.IsField() {
			ob.Kind = "field"
		} else if o.Parent() == o.Pkg().Scope() {
			ob.Kind = "var"
		} else {
			return nil
		}
	default:
		return nil
	}
	c.objs[o] = ob
	return ob
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: go_oracle ROOT PKG...")
		os.Exit(2)
	}
	root, _ := filepath.Abs(os.Args[1])
	ctx := build.Default
	ctx.CgoEnabled = false
	ctx.GOROOT = filepath.Dir(root)
	c := &checker{root: root, fset: token.NewFileSet(), ctx: ctx, pkgs: map[string]*types.Package{},
		objs: map[types.Object]*object{}, calls: map[string]map[string]bool{}}
	for _, prefix := range os.Args[2:] {
		filepath.Walk(filepath.Join(root, prefix), func(p string, fi os.FileInfo, err error) error {
			if err != nil || !fi.IsDir() {
				return nil
			}
			base := fi.Name()
			if base == "testdata" || strings.HasPrefix(base, ".") {
				return filepath.SkipDir
			}
			r, _ := filepath.Rel(root, p)
			c.Import(filepath.ToSlash(r))
			return nil
		})
	}
	out := output{Calls: map[string][]string{}, Files: c.files}
	for _, ob := range c.objs {
		out.Objects = append(out.Objects, ob)
	}
	sort.Slice(out.Objects, func(i, j int) bool { return out.Objects[i].Def < out.Objects[j].Def })
	for from, tos := range c.calls {
		for to := range tos {
			out.Calls[from] = append(out.Calls[from], to)
		}
		sort.Strings(out.Calls[from])
	}
	sort.Strings(out.Files)
	out.Implements = c.implements()
	json.NewEncoder(os.Stdout).Encode(out)
}

// implements lists, for each non-empty package-level interface of the checked packages, the package-level named
// non-interface types whose value or pointer implements it.
func (c *checker) implements() map[string][]string {
	var ifaces, named []*types.TypeName
	for _, pkg := range c.pkgs {
		scope := pkg.Scope()
		for _, n := range scope.Names() {
			tn, ok := scope.Lookup(n).(*types.TypeName)
			if !ok {
				continue
			}
			if it, isIface := tn.Type().Underlying().(*types.Interface); isIface {
				if it.NumMethods() > 0 {
					ifaces = append(ifaces, tn)
				}
			} else {
				named = append(named, tn)
			}
		}
	}
	out := map[string][]string{}
	for _, i := range ifaces {
		def, ok := c.rel(i.Pos())
		if !ok {
			continue
		}
		it := i.Type().Underlying().(*types.Interface)
		for _, t := range named {
			if !types.Implements(t.Type(), it) && !types.Implements(types.NewPointer(t.Type()), it) {
				continue
			}
			if td, ok := c.rel(t.Pos()); ok {
				out[def] = append(out[def], td)
			}
		}
		sort.Strings(out[def])
	}
	return out
}
