import { FieldDef, FieldSet, Scalar, parseFieldValue, show } from './fields';
import { invalid } from './problem';
import { normalizeName } from './names';

/**
 * The filterExpression compiler (spec "filterExpression"). Form A nodes:
 *   group {conjunction: AND|OR, filters: [node, ...]}
 *   term  {field, operation, value} | {field, operation, values: [...]}
 * Form B nodes (Market Map): {operator, operands} and {field, comparator, value}.
 * Each operation has three spellings (=, EQ, EQUALS ...). The tree compiles once per request to a
 * predicate over rows; every fault is a 400 naming its path in the tree.
 */

export type Op = 'EQ' | 'NEQ' | 'LT' | 'LTE' | 'GT' | 'GTE';
export type Predicate<Row> = (row: Row) => boolean;

const OPS = new Map<string, Op>();
for (const [op, spellings] of [
  ['EQ', ['=', '==', 'EQ', 'EQUALS']],
  ['NEQ', ['!=', '<>', 'NEQ', 'DOES_NOT_EQUAL']],
  ['LT', ['<', 'LT', 'LESS_THAN']],
  ['LTE', ['<=', 'LTE', 'LESS_THAN_OR_EQUAL_TO']],
  ['GT', ['>', 'GT', 'GREATER_THAN']],
  ['GTE', ['>=', 'GTE', 'GREATER_THAN_OR_EQUAL_TO']],
] as const) {
  for (const s of spellings) OPS.set(/[A-Z]/.test(s) ? normalizeName(s) : s, op);
}

export function parseOp(raw: unknown, path: string): Op {
  if (typeof raw === 'string') {
    const t = raw.trim();
    const op = OPS.get(t) ?? OPS.get(normalizeName(t));
    if (op) return op;
  }
  throw invalid(
    path,
    `${show(raw)} is not an operation (use =, !=, <, <=, >, >= or EQ, NEQ, LT, LTE, GT, GTE or EQUALS, DOES_NOT_EQUAL, LESS_THAN, LESS_THAN_OR_EQUAL_TO, GREATER_THAN, GREATER_THAN_OR_EQUAL_TO)`,
  );
}

/** A resolved comparison: the unit both the filter object and the expression compile to. */
export interface Term<Row> {
  field: FieldDef<Row>;
  op: Op;
  /** One value, or several (OR for =, NOR for !=). */
  values: Scalar[];
}

export const LIMITS = { maxDepth: 8, maxNodes: 256, maxValues: 1000 };

function ordered<Row>(f: FieldDef<Row>): boolean {
  return f.type === 'integer' || f.type === 'number' || f.type === 'time' || f.type === 'date' || (f.type === 'enum' && !!f.enumRank);
}

export function checkTerm<Row>(t: Term<Row>, path: string): void {
  const { field: f, op } = t;
  if (op !== 'EQ' && op !== 'NEQ') {
    if (!ordered(f)) throw invalid(path, `${f.name} supports only = and != (it has no order)`);
    if (t.values.length !== 1) throw invalid(path, `${op} compares with one value; 'values' is for = and !=`);
  }
}

function compare<Row>(f: FieldDef<Row>, a: Scalar, b: Scalar): number {
  if (f.type === 'enum' && f.enumRank) return f.enumRank(a as string) - f.enumRank(b as string);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function matchOne<Row>(f: FieldDef<Row>, actual: Scalar, op: Op, want: Scalar): boolean {
  if (f.type === 'text')
    return String(actual)
      .toLowerCase()
      .includes(want as string);
  if (op === 'EQ') return actual === want;
  const c = compare(f, actual, want);
  switch (op) {
    case 'LT':
      return c < 0;
    case 'LTE':
      return c <= 0;
    case 'GT':
      return c > 0;
    case 'GTE':
      return c >= 0;
    default:
      return actual === want;
  }
}

/** Compiles a resolved term to a predicate. Null row values never match (SQL-like). */
export function termPredicate<Row>(t: Term<Row>): Predicate<Row> {
  const { field: f, op, values } = t;
  const wanted = f.type === 'text' ? values : new Set(values);
  const listOf = (row: Row): Scalar[] => {
    const v = f.get(row);
    const arr = Array.isArray(v) ? v : [v];
    return arr.filter((x): x is Scalar => x !== null && x !== undefined);
  };
  if (op === 'EQ' || op === 'NEQ') {
    const anyEqual = (row: Row): boolean => {
      const actual = listOf(row);
      if (f.type === 'text') return actual.some((a) => (wanted as Scalar[]).some((w) => matchOne(f, a, 'EQ', w)));
      return actual.some((a) => (wanted as Set<Scalar>).has(a));
    };
    return op === 'EQ' ? anyEqual : (row) => !anyEqual(row);
  }
  const want = values[0];
  return (row) => listOf(row).some((a) => matchOne(f, a, op, want));
}

export function and<Row>(ps: Predicate<Row>[]): Predicate<Row> {
  if (ps.length === 0) return () => true;
  if (ps.length === 1) return ps[0];
  return (row) => ps.every((p) => p(row));
}

export function or<Row>(ps: Predicate<Row>[]): Predicate<Row> {
  if (ps.length === 1) return ps[0];
  return (row) => ps.some((p) => p(row));
}

interface Syntax {
  group: { conj: string; children: string };
  term: { op: string };
}
const FORM_A: Syntax = { group: { conj: 'conjunction', children: 'filters' }, term: { op: 'operation' } };
const FORM_B: Syntax = { group: { conj: 'operator', children: 'operands' }, term: { op: 'comparator' } };

export interface CompiledExpression<Row> {
  predicate: Predicate<Row>;
  /** Every field the expression reads (lets a view fetch extra data only when needed). */
  fields: Set<string>;
  /** The values each field is compared with (lets a view tell whether stored tiers answer a term). */
  constants: Map<string, unknown[]>;
}

export function compileExpression<Row>(raw: unknown, fields: FieldSet<Row>, form: 'A' | 'B' = 'A', root = 'filterExpression'): CompiledExpression<Row> {
  const syn = form === 'A' ? FORM_A : FORM_B;
  let nodes = 0;
  const used = new Set<string>();
  const constants = new Map<string, unknown[]>();

  const compile = (node: unknown, path: string, depth: number): Predicate<Row> => {
    if (++nodes > LIMITS.maxNodes) throw invalid(root, `has more than ${LIMITS.maxNodes} nodes`);
    if (depth > LIMITS.maxDepth) throw invalid(path, `nests deeper than ${LIMITS.maxDepth} levels`);
    if (typeof node !== 'object' || node === null || Array.isArray(node)) throw invalid(path, 'must be an object (a group or a term)');
    const o = node as Record<string, unknown>;
    const isGroup = syn.group.conj in o || syn.group.children in o;
    const allowed = isGroup ? [syn.group.conj, syn.group.children] : form === 'A' ? ['field', syn.term.op, 'value', 'values'] : ['field', syn.term.op, 'value'];
    for (const k of Object.keys(o)) {
      if (!allowed.includes(k)) throw invalid(`${path}.${k}`, `is not allowed in a ${isGroup ? 'group' : 'term'} node (allowed: ${allowed.join(', ')})`);
    }
    if (isGroup) {
      const conj = o[syn.group.conj];
      const c = typeof conj === 'string' ? conj.trim().toUpperCase() : conj;
      if (c !== 'AND' && c !== 'OR') throw invalid(`${path}.${syn.group.conj}`, `must be AND or OR, got ${show(conj)}`);
      const children = o[syn.group.children];
      if (!Array.isArray(children) || children.length === 0) throw invalid(`${path}.${syn.group.children}`, 'must be a non-empty array of nodes');
      const ps = children.map((ch, i) => compile(ch, `${path}.${syn.group.children}[${i}]`, depth + 1));
      return c === 'AND' ? and(ps) : or(ps);
    }
    if (!('field' in o)) throw invalid(path, `must be a group {${syn.group.conj}, ${syn.group.children}} or a term {field, ${syn.term.op}, value}`);
    const field = fields.filterable(o.field, `${path}.field`);
    used.add(field.name);
    const op = parseOp(o[syn.term.op], `${path}.${syn.term.op}`);
    const hasValue = 'value' in o;
    const hasValues = form === 'A' && 'values' in o;
    if (hasValue === hasValues) throw invalid(path, form === 'A' ? "needs exactly one of 'value' or 'values'" : "needs 'value'");
    let raws: unknown[];
    if (hasValues) {
      if (!Array.isArray(o.values) || o.values.length === 0) throw invalid(`${path}.values`, 'must be a non-empty array');
      if (o.values.length > LIMITS.maxValues) throw invalid(`${path}.values`, `has more than ${LIMITS.maxValues} values`);
      raws = o.values;
    } else {
      raws = [o.value];
    }
    const values = raws.map((v, i) => parseFieldValue(field, v, hasValues ? `${path}.values[${i}]` : `${path}.value`));
    const term: Term<Row> = { field, op, values };
    checkTerm(term, path);
    constants.set(field.name, [...(constants.get(field.name) ?? []), ...values]);
    return termPredicate(term);
  };

  const predicate = compile(raw, root, 1);
  return { predicate, fields: used, constants };
}
