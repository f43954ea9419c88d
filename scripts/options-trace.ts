/**
 * Follows one function's options parameter through the calls, as a reader following it would:
 * every call that is handed the options, a field of them or a value built from one enters the
 * callee with that parameter followed in turn. Prints the files entered, in order, and the
 * returns: a call into a file the trace had entered before, from a file that had not called
 * into it yet (a second call along a caller-callee pair already taken is not one; the count of
 * every re-entry is printed too).
 *
 *   node --import tsx scripts/options-trace.ts [file] [function] [parameter]
 *
 * Defaults: src/scan/scan.ts scanLibraryBatches options (issue 27's measure; test/rules holds it).
 * The trace stays in the start file's folder (`src/scan`): a path handed to a database opener or
 * a file-system helper elsewhere is no longer the scan's option.
 * What carries a followed value: the value itself, a field of it (`options.roots`), a value
 * computed from one (`??`, `||`, `?:`, `===`, `!`, arithmetic, a template, a call outside the
 * folder such as `Math.max(workers, 1)` or a method of a followed value), an object or array
 * literal holding one, a callback whose body uses one, and a variable, destructured name or
 * field bound or assigned to one. What does not: the result of a call into the folder (the
 * callee has been followed instead, and what it returns is its own), and the inside of a method
 * called on a followed value (the trace follows where a value goes, not what it does).
 */
import { dirname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

export interface TraceStep {
  /** Where the call is, and what it enters (paths relative to the project). */
  from: string;
  to: string;
  callee: string;
  /** The parameter followed in the callee. */
  parameter: string;
  /** The callee's file had been entered and left before. */
  isReturn: boolean;
}

export interface OptionsTrace {
  /** Files entered, in the order first entered (the start file first). */
  files: string[];
  steps: TraceStep[];
  returns: number;
  /** Every call into a file entered before, a second call along the same caller-callee pair included. */
  reentries: number;
}

const PROJECT = resolve(import.meta.dirname, '..');

type FunctionLike = ts.FunctionLikeDeclaration & { body: ts.Node };

export function traceOptions(
  file = 'src/scan/scan.ts',
  functionName = 'scanLibraryBatches',
  parameterName = 'options',
  project = PROJECT,
): OptionsTrace {
  const start = resolve(project, file);
  const program = ts.createProgram([start], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(start);
  if (!source) throw new Error(`${file}: not found`);
  const root = findFunction(source, functionName);
  const index = root?.parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === parameterName) ?? -1;
  if (!root || index < 0) throw new Error(`${file}: no function ${functionName} with a parameter ${parameterName}`);

  // The trace stays inside the start file's folder (the scan): a path handed to a database
  // opener or a file-system helper elsewhere in src/ is no longer the scan's option.
  const scope = dirname(start);
  const shown = (node: ts.Node): string => relative(project, node.getSourceFile().fileName);
  const inScope = (node: ts.Node): boolean => node.getSourceFile().fileName.startsWith(`${scope}/`);
  const ctx: Ctx = { checker, inScope };
  const files: string[] = [shown(root)];
  const steps: TraceStep[] = [];
  const followed = new Set<string>();
  let reentries = 0;

  const follow = (fn: FunctionLike, paramIndex: number, fields: Fields, here: string): void => {
    const param = fn.parameters[paramIndex];
    const key = `${fn.getSourceFile().fileName}:${fn.pos}:${paramIndex}:${fields === 'all' ? '*' : [...fields].sort()}`;
    if (!param || followed.has(key)) return;
    followed.add(key);
    const tracked: Tracked = new Map();
    bind(param.name, fields, tracked, checker);
    spreadThroughBindings(fn.body, tracked, ctx);
    visitCalls(fn.body, (call) => {
      const callee = calleeFunction(call, checker);
      if (!callee || !inScope(callee)) return;
      const carried = (call.arguments ?? []).map((argument) => carries(argument, tracked, ctx));
      if (carried.every((f) => f === null)) return;
      const target = shown(callee);
      if (target !== here) {
        if (files.includes(target)) reentries += 1;
        const isReturn = files.includes(target) && !steps.some((s) => s.from === here && s.to === target);
        if (!files.includes(target)) files.push(target);
        steps.push({
          from: here,
          to: target,
          callee: calleeName(callee),
          parameter: carried
            .flatMap((f, i) => (f === null ? [] : [callee.parameters[i]?.name.getText() ?? '…']))
            .join(', '),
          isReturn,
        });
      }
      carried.forEach((f, i) => {
        if (f !== null) follow(callee, Math.min(i, callee.parameters.length - 1), f, target);
      });
    });
  };
  follow(root as FunctionLike, index, 'all', shown(root));
  return { files, steps, returns: steps.filter((step) => step.isReturn).length, reentries };
}

/** Which of a value's fields carry a followed value: all of them, or the named ones of an object literal. */
type Fields = 'all' | Set<string>;
interface Ctx {
  checker: ts.TypeChecker;
  /** Whether a declaration lies in the traced folder (its calls are followed). */
  inScope: (node: ts.Node) => boolean;
}
type Tracked = Map<ts.Symbol, Fields>;

function union(a: Fields | null, b: Fields | null): Fields | null {
  if (a === null) return b;
  if (b === null) return a;
  if (a === 'all' || b === 'all') return 'all';
  return new Set([...a, ...b]);
}

function findFunction(source: ts.SourceFile, name: string): ts.FunctionLikeDeclaration | undefined {
  let found: ts.FunctionLikeDeclaration | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isFunctionDeclaration(node) && node.name?.text === name && node.body) found = node;
    else ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Binds a name (or each name of a destructuring pattern) to what carries; returns whether it grew. */
function bind(name: ts.BindingName, fields: Fields, tracked: Tracked, checker: ts.TypeChecker): boolean {
  if (ts.isIdentifier(name)) {
    const symbol = checker.getSymbolAtLocation(name);
    if (!symbol) return false;
    const before = tracked.get(symbol) ?? null;
    const after = union(before, fields)!;
    if (before !== null && (before === 'all' || (after !== 'all' && after.size === before.size))) return false;
    tracked.set(symbol, after);
    return true;
  }
  let grew = false;
  for (const element of name.elements) {
    if (ts.isOmittedExpression(element)) continue;
    const key = element.propertyName?.getText() ?? (ts.isIdentifier(element.name) ? element.name.text : '');
    if (fields === 'all' || fields.has(key) || element.dotDotDotToken)
      grew = bind(element.name, 'all', tracked, checker) || grew;
  }
  return grew;
}

/** Variables bound to a followed value join it, until nothing more joins (closures read later ones). */
function spreadThroughBindings(body: ts.Node, tracked: Tracked, ctx: Ctx): void {
  const { checker } = ctx;
  for (let grew = true; grew; ) {
    grew = false;
    const visit = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && node.initializer) {
        const fields = carries(node.initializer, tracked, ctx);
        if (fields !== null) grew = bind(node.name, fields, tracked, checker) || grew;
      }
      // `x = value` and `x.field = value`.
      if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
        const fields = carries(node.right, tracked, ctx);
        const left = skipOuter(node.left);
        if (fields !== null && ts.isIdentifier(left)) grew = bind(left, fields, tracked, checker) || grew;
        if (fields !== null && ts.isPropertyAccessExpression(left) && ts.isIdentifier(left.expression))
          grew = bind(left.expression, new Set([left.name.text]), tracked, checker) || grew;
      }
      ts.forEachChild(node, visit);
    };
    visit(body);
  }
}

/** What of a followed value an expression is, holds or picks (a call's result carries nothing). */
function carries(expression: ts.Expression, tracked: Tracked, ctx: Ctx): Fields | null {
  const { checker } = ctx;
  const e = skipOuter(expression);
  if (ts.isIdentifier(e)) {
    const symbol =
      e.parent && ts.isShorthandPropertyAssignment(e.parent)
        ? checker.getShorthandAssignmentValueSymbol(e.parent)
        : checker.getSymbolAtLocation(e);
    return (symbol && tracked.get(symbol)) ?? null;
  }
  if (ts.isPropertyAccessExpression(e)) {
    const of = carries(e.expression, tracked, ctx);
    return of === 'all' || of?.has(e.name.text) ? 'all' : null;
  }
  if (ts.isElementAccessExpression(e)) return carries(e.expression, tracked, ctx) === null ? null : 'all';
  if (ts.isBinaryExpression(e)) {
    const kind = e.operatorToken.kind;
    const picks = [
      ts.SyntaxKind.QuestionQuestionToken,
      ts.SyntaxKind.BarBarToken,
      ts.SyntaxKind.AmpersandAmpersandToken,
    ];
    if (picks.includes(kind)) return union(carries(e.left, tracked, ctx), carries(e.right, tracked, ctx));
    // A value computed from one (`options.archives === true`, `a + b`), not an assignment.
    const assigns = kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
    const computed = kind !== ts.SyntaxKind.CommaToken && !assigns;
    return computed && (carries(e.left, tracked, ctx) ?? carries(e.right, tracked, ctx)) !== null ? 'all' : null;
  }
  if (ts.isPrefixUnaryExpression(e) || ts.isTypeOfExpression(e)) {
    const operand = ts.isPrefixUnaryExpression(e) ? e.operand : e.expression;
    return carries(operand, tracked, ctx) === null ? null : 'all';
  }
  if (ts.isTemplateExpression(e))
    return e.templateSpans.some((span) => carries(span.expression, tracked, ctx) !== null) ? 'all' : null;
  if (ts.isConditionalExpression(e))
    return union(carries(e.whenTrue, tracked, ctx), carries(e.whenFalse, tracked, ctx));
  if (ts.isObjectLiteralExpression(e)) {
    let fields: Fields | null = null;
    for (const property of e.properties) {
      if (ts.isSpreadAssignment(property)) fields = union(fields, carries(property.expression, tracked, ctx));
      else if (ts.isPropertyAssignment(property) || ts.isShorthandPropertyAssignment(property)) {
        const value = ts.isPropertyAssignment(property) ? property.initializer : property.name;
        if (carries(value, tracked, ctx) !== null) fields = union(fields, new Set([property.name.getText()]));
      }
    }
    return fields;
  }
  // A call outside the folder computes from what it is handed (and from the value it is a method of).
  if (ts.isCallExpression(e) || ts.isNewExpression(e)) {
    const callee = calleeFunction(e, checker);
    if (callee && ctx.inScope(callee)) return null;
    const receiver =
      ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression)
        ? carries(e.expression.expression, tracked, ctx)
        : null;
    return receiver !== null || (e.arguments ?? []).some((argument) => carries(argument, tracked, ctx) !== null)
      ? 'all'
      : null;
  }
  // A callback that uses one: a reader follows it to where it is called.
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return mentions(e.body, tracked, ctx) ? 'all' : null;
  if (ts.isArrayLiteralExpression(e) || ts.isSpreadElement(e)) {
    const items = ts.isSpreadElement(e) ? [e.expression] : e.elements;
    return items.some((item) => carries(item, tracked, ctx) !== null) ? 'all' : null;
  }
  return null;
}

/** Whether a function's body reads a followed value. */
function mentions(body: ts.Node, tracked: Tracked, { checker }: Ctx): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(node)) {
      const symbol = checker.getSymbolAtLocation(node);
      if (symbol && tracked.has(symbol)) found = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(body);
  return found;
}

function skipOuter(expression: ts.Expression): ts.Expression {
  let e = expression;
  while (
    ts.isParenthesizedExpression(e) ||
    ts.isAsExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isAwaitExpression(e) ||
    ts.isSatisfiesExpression(e) ||
    ts.isTypeAssertionExpression(e)
  )
    e = e.expression;
  return e;
}

function visitCalls(body: ts.Node, onCall: (call: ts.CallExpression | ts.NewExpression) => void): void {
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) onCall(node);
    ts.forEachChild(node, visit);
  };
  visit(body);
}

/** The function a call enters, when it has a body (imports followed to their declaration). */
function calleeFunction(call: ts.CallExpression | ts.NewExpression, checker: ts.TypeChecker): FunctionLike | null {
  let symbol = checker.getSymbolAtLocation(
    ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression,
  );
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  for (const declaration of symbol?.declarations ?? []) {
    if (ts.isClassDeclaration(declaration)) {
      const made = declaration.members.find(ts.isConstructorDeclaration);
      if (made?.body) return made as FunctionLike;
    }
    if (ts.isFunctionLike(declaration) && 'body' in declaration && declaration.body) return declaration as FunctionLike;
    if (ts.isVariableDeclaration(declaration) && declaration.initializer) {
      const init = skipOuter(declaration.initializer);
      if ((ts.isArrowFunction(init) || ts.isFunctionExpression(init)) && init.body) return init as FunctionLike;
    }
  }
  return null;
}

function calleeName(fn: FunctionLike): string {
  if (fn.name) return fn.name.getText();
  const parent = fn.parent;
  return ts.isVariableDeclaration(parent) ? parent.name.getText() : '(anonymous)';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, fn, param] = process.argv.slice(2);
  const trace = traceOptions(file, fn, param);
  for (const step of trace.steps)
    console.log(`${step.isReturn ? '↩' : '→'} ${step.to}  ${step.callee}(${step.parameter})  from ${step.from}`);
  console.log(
    `\n${trace.files.length} files, ${trace.returns} returns (${trace.reentries} re-entries in all):\n  ${trace.files.join('\n  ')}`,
  );
}
