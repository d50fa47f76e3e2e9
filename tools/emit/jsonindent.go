package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// jsonWidth is the line width indentJSON fills.
const jsonWidth = 100

// jsonNode is a parsed JSON value with its object keys in document order.
type jsonNode struct {
	scalar string // the encoded literal; empty for an object or array
	object bool
	keys   []string
	elems  []*jsonNode
}

// indentJSON prints a JSON document with two-space indentation, except
// that an object or array whose one-line form fits in width columns stays
// on one line: {"expr": "N - 1", "value": 63}.
func indentJSON(doc []byte, width int) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	n, err := parseJSONNode(dec)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	n.write(&b, 0, width)
	b.WriteString("\n")
	return b.String(), nil
}

func parseJSONNode(dec *json.Decoder) (*jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &jsonNode{object: t == '{'}
		for dec.More() {
			if n.object {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			e, err := parseJSONNode(dec)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, e)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		return &jsonNode{scalar: string(b)}, nil
	}
}

func quoteKey(k string) string {
	b, _ := json.Marshal(k)
	return string(b)
}

func (n *jsonNode) delims() (string, string) {
	if n.object {
		return "{", "}"
	}
	return "[", "]"
}

// oneLine is the node on one line, with a space after ':' and ','.
func (n *jsonNode) oneLine() string {
	if n.scalar != "" {
		return n.scalar
	}
	open, close := n.delims()
	parts := make([]string, len(n.elems))
	for i, e := range n.elems {
		if n.object {
			parts[i] = quoteKey(n.keys[i]) + ": " + e.oneLine()
		} else {
			parts[i] = e.oneLine()
		}
	}
	return open + strings.Join(parts, ", ") + close
}

// write prints the node at the current position, which is indent levels
// deep and already holds prefix columns (the key).
func (n *jsonNode) write(w io.Writer, indent, width int) {
	n.writeAt(w, indent, 2*indent, width)
}

func (n *jsonNode) writeAt(w io.Writer, indent, col, width int) {
	if line := n.oneLine(); n.scalar != "" || len(n.elems) == 0 || col+len(line) <= width {
		io.WriteString(w, line)
		return
	}
	open, close := n.delims()
	io.WriteString(w, open+"\n")
	pad := strings.Repeat("  ", indent+1)
	for i, e := range n.elems {
		io.WriteString(w, pad)
		c := len(pad)
		if n.object {
			k := quoteKey(n.keys[i]) + ": "
			io.WriteString(w, k)
			c += len(k)
		}
		// One more column for the comma.
		e.writeAt(w, indent+1, c+1, width)
		if i < len(n.elems)-1 {
			io.WriteString(w, ",")
		}
		io.WriteString(w, "\n")
	}
	fmt.Fprintf(w, "%s%s", strings.Repeat("  ", indent), close)
}
