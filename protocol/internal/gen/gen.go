package gen

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// Table and Output are the file names Generate reads and its output's
// name, both in the protocol directory.
const (
	Table  = "events.txt"
	Output = "zz_events.go"
)

// event is one "event" row of the table.
type event struct {
	typ      string
	identity string   // "-", "id" or "rule"
	validate string   // "-", "own", or "required"
	required []string // wire keys, or "identity"
	names    []string // Type… constants
}

// field is what the generator needs of a struct field.
type field struct {
	name     string // Go name
	nilCheck bool   // pointer, map, slice: required means non-nil
	isString bool
}

// structInfo is a struct type of the package.
type structInfo struct {
	fields   map[string]field // by JSON key
	hasExtra bool             // Extra field, or an embedded Header / ServerHeader
	isEvent  bool             // embeds Header or ServerHeader
	embeds   []string         // other embedded struct types, whose fields it promotes
}

// Generate returns the gofmt'ed Output for the protocol package in dir.
func Generate(dir string) ([]byte, error) {
	tab, err := os.ReadFile(filepath.Join(dir, Table))
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	events, objects, err := parseTable(tab)
	if err != nil {
		return nil, err
	}
	structs, err := readStructs(dir)
	if err != nil {
		return nil, err
	}
	if err := check(events, objects, structs); err != nil {
		return nil, err
	}
	src := render(events, objects, structs)
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("gen: gofmt: %w\n%s", err, src)
	}
	return out, nil
}

// parseTable reads rows "event TYPE IDENTITY VALIDATE NAME…" and
// "object TYPE"; # starts a comment.
func parseTable(tab []byte) ([]event, []string, error) {
	var events []event
	var objects []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(tab))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		bad := func(why string) error { return fmt.Errorf("gen: %s:%d: %s", Table, n, why) }
		if len(f) < 2 {
			return nil, nil, bad("want a kind and a type")
		}
		if seen[f[1]] {
			return nil, nil, bad("type " + f[1] + " listed twice")
		}
		seen[f[1]] = true
		switch f[0] {
		case "object":
			if len(f) != 2 {
				return nil, nil, bad("want: object TYPE")
			}
			objects = append(objects, f[1])
		case "event":
			if len(f) < 5 {
				return nil, nil, bad("want: event TYPE IDENTITY VALIDATE NAME…")
			}
			e := event{typ: f[1], identity: f[2], validate: f[3], names: f[4:]}
			if e.identity != "-" && e.identity != "id" && e.identity != "rule" {
				return nil, nil, bad("identity must be -, id or rule, not " + e.identity)
			}
			if e.validate != "-" && e.validate != "own" {
				e.required = strings.Split(e.validate, ",")
				e.validate = "required"
			}
			events = append(events, e)
		default:
			return nil, nil, bad("unknown kind " + f[0])
		}
	}
	return events, objects, sc.Err()
}

// readStructs parses the package's hand-written files for their struct types.
func readStructs(dir string) (map[string]*structInfo, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	structs := map[string]*structInfo{}
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") || filepath.Base(p) == Output {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("gen: %w", err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				structs[ts.Name.Name] = structOf(st)
			}
			return false
		})
	}
	for _, s := range structs {
		promote(s, structs)
	}
	return structs, nil
}

// promote adds the fields of s's embedded structs to s, as encoding/json
// reads them; a field of s's own wins over a promoted one of the same key.
func promote(s *structInfo, structs map[string]*structInfo) {
	for _, name := range s.embeds {
		e := structs[name]
		if e == nil {
			continue
		}
		promote(e, structs)
		for k, f := range e.fields {
			if _, own := s.fields[k]; !own {
				s.fields[k] = f
			}
		}
	}
	s.embeds = nil
}

func structOf(st *ast.StructType) *structInfo {
	s := &structInfo{fields: map[string]field{}}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			if id, ok := f.Type.(*ast.Ident); ok {
				if id.Name == "Header" || id.Name == "ServerHeader" {
					s.isEvent, s.hasExtra = true, true
				} else {
					s.embeds = append(s.embeds, id.Name)
				}
			}
			continue
		}
		name := f.Names[0].Name
		if name == "Extra" {
			s.hasExtra = true
		}
		if f.Tag == nil {
			continue
		}
		tag, _ := strconv.Unquote(f.Tag.Value)
		key, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
		if key == "" || key == "-" {
			continue
		}
		fd := field{name: name}
		switch t := f.Type.(type) {
		case *ast.StarExpr, *ast.MapType, *ast.ArrayType:
			fd.nilCheck = true
		case *ast.Ident:
			fd.isString = t.Name == "string"
		case *ast.SelectorExpr: // json.RawMessage
			fd.nilCheck = true
		}
		s.fields[key] = fd
	}
	return s
}

// check fails on a row the package's types cannot carry.
func check(events []event, objects []string, structs map[string]*structInfo) error {
	for _, e := range events {
		s := structs[e.typ]
		if s == nil || !s.isEvent {
			return fmt.Errorf("gen: event %s: no struct embedding Header or ServerHeader", e.typ)
		}
		if e.identity != "-" && s.fields["response_id"].name != "ResponseID" {
			return fmt.Errorf("gen: event %s: identity %s needs a response_id field ResponseID", e.typ, e.identity)
		}
		if e.identity == "rule" && s.fields["response"].name != "Response" {
			return fmt.Errorf("gen: event %s: identity rule needs a response field Response", e.typ)
		}
		for _, k := range e.required {
			if k == "identity" {
				if e.identity == "-" {
					return fmt.Errorf("gen: event %s: requires an identity it has not", e.typ)
				}
				continue
			}
			f, ok := s.fields[k]
			if !ok || (!f.nilCheck && !f.isString) {
				return fmt.Errorf("gen: event %s: required %q is not a string, pointer, map or slice field", e.typ, k)
			}
		}
	}
	for _, o := range objects {
		if s := structs[o]; s == nil || !s.hasExtra {
			return fmt.Errorf("gen: object %s: no struct with an Extra field", o)
		}
	}
	return nil
}

func render(events []event, objects []string, structs map[string]*structInfo) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("// Code generated by protogen from %s; DO NOT EDIT.\n", Table)
	p("// Edit %s (or the hand-written types) and run `go generate ./protocol/`.\n\n", Table)
	p("package protocol\n\nimport \"encoding/json\"\n\n")

	p("func init() {\n")
	for _, e := range events {
		p("register(func() Event { return new(%s) }, %s)\n", e.typ, strings.Join(e.names, ", "))
	}
	p("}\n\n")

	p("// JSON methods: modelled fields plus the unknown keys kept in Extra.\n\n")
	types := make([]string, 0, len(events)+len(objects))
	for _, e := range events {
		types = append(types, e.typ)
	}
	types = append(types, objects...)
	// keep declares each type's one method-less twin: the JSON methods
	// (and Decode's one typed pass, see decodeTop) all go through it, so
	// app.wasm carries one twin type per event, not one per method.
	for _, t := range types {
		p("func (e *%[1]s) keep() (any, *map[string]json.RawMessage) {\ntype plain %[1]s\nreturn (*plain)(e), &e.Extra\n}\n\n", t)
		p("func (e *%[1]s) UnmarshalJSON(b []byte) error {\nv, extra := e.keep()\nreturn decodeKeep(b, v, extra)\n}\n\n", t)
		p("func (e %[1]s) MarshalJSON() ([]byte, error) {\nv, _ := e.keep()\nreturn encodeKeep(v, e.Extra)\n}\n\n", t)
	}

	// One line per method and no blank lines: each section is a run of
	// one shape, not blocks that repeat (docs/style.md#habits).
	p("// ResponseIdentity returns response_id, or applies the identity rule\n")
	p("// (docs/protocol.md#response-identity) where the event has a response object.\n")
	for _, e := range events {
		switch e.identity {
		case "id":
			p("func (e *%s) ResponseIdentity() string { return e.ResponseID }\n", e.typ)
		case "rule":
			p("func (e *%s) ResponseIdentity() string { return identity(e.ResponseID, e.Response) }\n", e.typ)
		}
	}
	p("\n// Validate of events with required keys: the first one missing, in %s's order.\n", Table)
	for _, e := range events {
		if e.validate == "required" {
			renderValidate(p, e, structs[e.typ])
		}
	}
	p("\n// Validate of events that require nothing (the minimal {\"type\":…} is valid).\n")
	for _, e := range events {
		if e.validate == "-" {
			p("func (e *%s) Validate() error { return nil }\n", e.typ)
		}
	}
	return b.Bytes()
}

func renderValidate(p func(string, ...any), e event, s *structInfo) {
	has := make([]string, len(e.required))
	keys := make([]string, len(e.required))
	for i, k := range e.required {
		switch f := s.fields[k]; {
		case k == "identity":
			has[i], keys[i] = `e.ResponseIdentity() != ""`, `"response_id"`
		case f.nilCheck:
			has[i], keys[i] = "e."+f.name+" != nil", strconv.Quote(k)
		default:
			has[i], keys[i] = "e."+f.name+` != ""`, strconv.Quote(k)
		}
	}
	p("func (e *%s) Validate() error { return need(e.Type, []bool{%s}, %s) }\n",
		e.typ, strings.Join(has, ", "), strings.Join(keys, ", "))
}
