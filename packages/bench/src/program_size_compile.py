"""`program-size`: the compile step alone, in a plain interpreter, four ways side by side.

Reads one JSON object on stdin: {"pythonDir": <the provider's python/ folder>, "repetitions": N,
"programs": [{"label": ..., "source": ...}]}. Writes one JSON object on stdout: per program, the
wall and CPU milliseconds of every timed compile of each kind.

- module: `compile(source, flags=PyCF_ALLOW_TOP_LEVEL_AWAIT)` at module level, as Sluice compiles now;
- sluice: the provider's own `compile_program` (parse, the top-level rewrite, compile of the tree);
- wrapper: the old way, the same source indented as the body of `async def __program():`;
- sluice_wrapper: the provider's old `compile_program`, redone here: parse, top-level `return x` made
  `return (x,)`, the statements moved into `async def __program__():` on the tree, locations filled
  in, compile of the tree. The pair to `sluice`, as `wrapper` is to `module`.

Each timing runs with the garbage collector off (after a collection), as timeit does; the kinds
take turns in a rotating order so that drift on a shared machine falls on all of them alike.
"""

import ast
import gc
import json
import sys
import time


class _OldReturns(ast.NodeTransformer):
    """What the old provider did to top-level returns before wrapping; functions, lambdas and classes are left alone."""

    def _leave(self, node):
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _leave

    def visit_Return(self, node):
        value = node.value if node.value is not None else ast.copy_location(ast.Constant(None), node)
        return ast.copy_location(ast.Return(value=ast.copy_location(ast.Tuple(elts=[value], ctx=ast.Load()), value)), node)


def old_compile_program(source):
    tree = ast.parse(source, '<program>', 'exec')
    returns = _OldReturns()
    module = ast.parse('async def __program__():\n    pass\n')
    function = module.body[0]
    last_line = max(len(source.splitlines()), 1)
    fall_off = ast.Return(value=ast.Tuple(elts=[], ctx=ast.Load()))
    function.body = [returns.visit(statement) for statement in tree.body] + [fall_off]
    for node in (function, fall_off):
        node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = 1, 0, last_line, 0
    fall_off.lineno = last_line
    ast.fix_missing_locations(module)
    return compile(module, '<program>', 'exec', dont_inherit=True)


def main():
    request = json.load(sys.stdin)
    sys.path.insert(0, request['pythonDir'])
    import sluice_program

    def module_level(source):
        return compile(source, '<program>', 'exec', flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)

    def wrapper(body):
        return compile(body, '<program>', 'exec', dont_inherit=True)

    kinds = {
        'module': (module_level, lambda source: source),
        'sluice': (sluice_program.compile_program, lambda source: source),
        'wrapper': (wrapper, lambda source: 'async def __program():\n' + ''.join('    ' + line + '\n' for line in source.splitlines())),
        'sluice_wrapper': (old_compile_program, lambda source: source),
    }
    programs = []
    for program in request['programs']:
        inputs = {kind: prepare(program['source']) for kind, (_, prepare) in kinds.items()}
        # Untimed first compiles: they also check that every kind accepts the program.
        code = module_level(inputs['module'])
        if not code.co_flags & 0x80:  # CO_COROUTINE: the top-level await made it a coroutine
            raise SystemExit(f"{program['label']}: the module-level code is not a coroutine")
        if not sluice_program.compile_program(inputs['sluice']).is_coroutine:
            raise SystemExit(f"{program['label']}: compile_program did not see the top-level await")
        wrapper(inputs['wrapper'])
        old_compile_program(inputs['sluice_wrapper'])
        programs.append({'label': program['label'], 'inputs': inputs, 'wallMs': {kind: [] for kind in kinds}, 'cpuMs': {kind: [] for kind in kinds}})

    order = list(kinds)
    for repetition in range(request['repetitions']):
        turn = order[repetition % len(order):] + order[:repetition % len(order)]
        for program in programs:
            for kind in turn:
                run = kinds[kind][0]
                text = program['inputs'][kind]
                gc.collect()
                gc.disable()
                try:
                    wall, cpu = time.perf_counter(), time.process_time()
                    run(text)
                    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                finally:
                    gc.enable()
                program['wallMs'][kind].append(wall * 1000)
                program['cpuMs'][kind].append(cpu * 1000)

    json.dump({
        'python': sys.version.split()[0],
        'implementation': sys.implementation.name,
        'programs': [{key: program[key] for key in ('label', 'wallMs', 'cpuMs')} for program in programs],
    }, sys.stdout)


main()
