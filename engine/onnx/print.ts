// Text dump of an IR graph, one node per line, for debugging and snapshot tests.
// Deterministic and compact; tensors print as dtype[dims], never their contents.

import type { AttrValue, Graph, ValueInfo } from './ir.ts';
import { isGraph, isHostTensor } from './ir.ts';

function fmtInfo(v: ValueInfo): string {
  return `${v.name}: ${v.dtype}[${v.shape.join(',')}]`;
}

function fmtAttr(v: AttrValue): string {
  if (isHostTensor(v)) {
    const vals = v.data.length <= 4 ? `{${Array.from(v.data as ArrayLike<number | bigint>).join(',')}}` : '';
    return `${v.dtype}[${v.dims.join(',')}]${vals}`;
  }
  if (isGraph(v)) return `graph(${v.name}, ${v.nodes.length} nodes)`;
  return JSON.stringify(v);
}

/** Print a graph as text. */
export function printGraph(g: Graph, indent = ''): string {
  const lines: string[] = [`${indent}graph ${g.name}`];
  for (const i of g.inputs) lines.push(`${indent}  in  ${fmtInfo(i)}`);
  for (const [name, t] of g.initializers) lines.push(`${indent}  init ${name}: ${t.dtype}[${t.dims.join(',')}]`);
  for (const n of g.nodes) {
    const attrs = Object.entries(n.attrs).map(([k, v]) => `${k}=${fmtAttr(v)}`).join(', ');
    const outs = n.outputs.map((o) => {
      const vi = g.valueInfo.get(o);
      return vi ? `${o}: ${vi.dtype}[${vi.shape.join(',')}]` : o;
    });
    const op = n.domain ? `${n.domain}.${n.opType}` : n.opType;
    lines.push(`${indent}  ${outs.join(', ')} = ${op}(${n.inputs.join(', ')})${attrs ? ` {${attrs}}` : ''}`);
  }
  for (const o of g.outputs) lines.push(`${indent}  out ${fmtInfo(o)}`);
  return lines.join('\n');
}
