package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:     "call",
		Synonyms: []string{"run", "invoke", "use", "include"},
		Doc:      "Run another workflow in the same environment and keep its data. Cycles are load errors.",
		Fields: []step.Field{
			{Name: "tool", Type: step.Tool, Required: true, Doc: "the workflow to run"},
			{Name: "with", Type: step.ValueMap, Args: true, Doc: "its arguments"},
			{Name: "into", Type: step.VarName, Doc: "store its data in this variable"},
		},
		Example: "call: {tool: product_details, with: {sku: \"${{ params.sku }}\"}, into: details}",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			caller, err := step.Need[step.Caller](x, s)
			if err != nil {
				return err
			}
			args := map[string]any{}
			for _, nv := range s.Values("with") {
				v, err := x.Eval(ctx, nv.Value)
				if err != nil {
					return err
				}
				args[nv.Name] = v
			}
			data, err := caller.Call(ctx, s.Str("tool"), args)
			if err != nil {
				return err
			}
			if into := s.Str("into"); into != "" {
				x.SetVar(into, data, false)
			}
			return nil
		},
	})
}
