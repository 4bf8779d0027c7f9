/**
 * The part of CloudWatch metric math the dashboard and the alarms use: numbers, metric ids, + - * /,
 * comparisons, AND, OR, IF, FILL and RATE, over series of datapoints (one per period, oldest first; a
 * missing datapoint is undefined, and arithmetic on it stays missing).
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/using-metric-math.html
 */

export type Series = readonly (number | undefined)[];

interface MathContext {
  readonly inputs: Readonly<Record<string, Series>>;
  readonly length: number;
  readonly periodSeconds: number;
}

type Node =
  | { kind: 'number'; value: number }
  | { kind: 'id'; name: string }
  | { kind: 'call'; name: string; args: Node[] }
  | { kind: 'unary'; operand: Node }
  | { kind: 'binary'; operator: string; left: Node; right: Node };

/** Evaluates an expression whose ids name series of equal length, one datapoint per `periodSeconds`. */
export function evaluateMath(
  expression: string,
  inputs: Readonly<Record<string, Series>>,
  periodSeconds: number,
): Series {
  const length = Math.max(0, ...Object.values(inputs).map((s) => s.length));
  return evaluate(parse(expression), { inputs, length, periodSeconds });
}

/** The metric ids an expression reads. */
export function mathInputs(expression: string): string[] {
  const ids = new Set<string>();
  const visit = (node: Node): void => {
    if (node.kind === 'id') ids.add(node.name);
    if (node.kind === 'call') node.args.forEach(visit);
    if (node.kind === 'unary') visit(node.operand);
    if (node.kind === 'binary') {
      visit(node.left);
      visit(node.right);
    }
  };
  visit(parse(expression));
  return [...ids];
}

function evaluate(node: Node, context: MathContext): Series {
  const { length } = context;
  switch (node.kind) {
    case 'number':
      return Array.from({ length }, () => node.value);
    case 'id': {
      const series = context.inputs[node.name];
      if (!series) throw new Error(`metric math: no metric with id ${node.name}`);
      return series;
    }
    case 'unary':
      return evaluate(node.operand, context).map((v) => (v === undefined ? undefined : -v));
    case 'binary': {
      const left = evaluate(node.left, context);
      const right = evaluate(node.right, context);
      return left.map((l, i) => {
        const r = right[i];
        return l === undefined || r === undefined ? undefined : applyOperator(node.operator, l, r);
      });
    }
    case 'call':
      return callFunction(node.name, node.args, context);
  }
}

function applyOperator(operator: string, l: number, r: number): number | undefined {
  switch (operator) {
    case '+':
      return l + r;
    case '-':
      return l - r;
    case '*':
      return l * r;
    case '/':
      return r === 0 ? undefined : l / r;
    case '>':
      return Number(l > r);
    case '<':
      return Number(l < r);
    case '>=':
      return Number(l >= r);
    case '<=':
      return Number(l <= r);
    case '==':
      return Number(l === r);
    case '!=':
      return Number(l !== r);
    case 'AND':
      return Number(l !== 0 && r !== 0);
    case 'OR':
      return Number(l !== 0 || r !== 0);
  }
  throw new Error(`metric math: operator ${operator}`);
}

function callFunction(name: string, args: Node[], context: MathContext): Series {
  const values = args.map((arg) => evaluate(arg, context));
  const [first = [], second = [], third = []] = values;
  switch (name) {
    case 'IF':
      return first.map((condition, i) =>
        condition === undefined ? undefined : condition !== 0 ? second[i] : third[i],
      );
    case 'FILL':
      return first.map((v, i) => v ?? second[i]);
    case 'RATE':
      // The change from the previous datapoint, per second; the first datapoint has none.
      return first.map((v, i) => {
        const previous = i === 0 ? undefined : first[i - 1];
        return v === undefined || previous === undefined ? undefined : (v - previous) / context.periodSeconds;
      });
  }
  throw new Error(`metric math: function ${name} is not supported locally`);
}

const TOKEN = /\s*(\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|>=|<=|==|!=|[-+*/(),<>])/y;

function parse(expression: string): Node {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.trimEnd().length) {
    const match = TOKEN.exec(expression);
    if (!match) throw new Error(`metric math: cannot read "${expression}" at ${TOKEN.lastIndex}`);
    tokens.push(match[1] as string);
  }
  let position = 0;
  const peek = () => tokens[position];
  const take = (expected?: string): string => {
    const token = tokens[position++];
    if (token === undefined || (expected !== undefined && token !== expected)) {
      throw new Error(`metric math: expected ${expected ?? 'more'} in "${expression}"`);
    }
    return token;
  };
  const binary = (operators: readonly string[], next: () => Node) => (): Node => {
    let left = next();
    while (operators.includes(peek() ?? '')) {
      const operator = take();
      left = { kind: 'binary', operator, left, right: next() };
    }
    return left;
  };
  const primary = (): Node => {
    const token = take();
    if (token === '(') {
      const inner = or();
      take(')');
      return inner;
    }
    if (token === '-') return { kind: 'unary', operand: primary() };
    if (/^\d/.test(token)) return { kind: 'number', value: Number(token) };
    if (peek() !== '(') return { kind: 'id', name: token };
    take('(');
    const args: Node[] = [];
    while (peek() !== ')') {
      args.push(or());
      if (peek() === ',') take(',');
    }
    take(')');
    return { kind: 'call', name: token.toUpperCase(), args };
  };
  const multiplicative = binary(['*', '/'], primary);
  const additive = binary(['+', '-'], multiplicative);
  const comparison = binary(['>', '<', '>=', '<=', '==', '!='], additive);
  const and = binary(['AND'], comparison);
  const or: () => Node = binary(['OR'], and);
  const tree = or();
  if (position !== tokens.length) throw new Error(`metric math: unexpected ${peek()} in "${expression}"`);
  return tree;
}
