"""The program wrapper: the model's source as the body of an async function, and errors in its own terms."""

import ast
import linecache
import traceback

#: The file name the program's code objects carry; tracebacks keep only frames from it.
PROGRAM_FILE = '<program>'

_WRAPPER = 'async def __program__():\n    pass\n'


class _WrapReturns(ast.NodeTransformer):
    """`return x` → `return (x,)`, so falling off the end (`return ()`) differs from `return None`.

    Nested functions and classes are left alone: their returns are their own.
    """

    def _leave(self, node):
        return node

    visit_FunctionDef = _leave
    visit_AsyncFunctionDef = _leave
    visit_Lambda = _leave
    visit_ClassDef = _leave

    def visit_Return(self, node):
        value = node.value if node.value is not None else ast.copy_location(ast.Constant(None), node)
        wrapped = ast.copy_location(ast.Tuple(elts=[value], ctx=ast.Load()), value)
        return ast.copy_location(ast.Return(value=wrapped), node)

    def _refuse(self, node):
        error = SyntaxError("'yield' is not allowed at the top level of a program; return a value instead")
        error.filename, error.lineno, error.offset = PROGRAM_FILE, node.lineno, node.col_offset + 1
        raise error

    visit_Yield = _refuse
    visit_YieldFrom = _refuse


def compile_program(source):
    """A code object that, run in a globals dict, defines `__program__`. Raises SyntaxError."""
    linecache.cache[PROGRAM_FILE] = (len(source), None, source.splitlines(True), PROGRAM_FILE)
    tree = ast.parse(source, PROGRAM_FILE, 'exec')
    transformer = _WrapReturns()
    body = [transformer.visit(statement) for statement in tree.body]
    wrapper = ast.parse(_WRAPPER)
    function = wrapper.body[0]
    last_line = len(source.splitlines()) or 1
    fall_off = ast.Return(value=ast.Tuple(elts=[], ctx=ast.Load()))
    function.body = body + [fall_off]
    # The wrapper spans the whole program, so every line of it falls inside the function's range.
    for node in (function, fall_off):
        node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = 1, 0, max(last_line, 1), 0
    fall_off.lineno = last_line
    ast.fix_missing_locations(wrapper)
    return compile(wrapper, PROGRAM_FILE, 'exec', dont_inherit=True)


def unwrap(result):
    """(has_value, value) from what `__program__` returned."""
    return (True, result[0]) if len(result) == 1 else (False, None)


def describe_error(error):
    """The `error` object of a failed `done` frame: name, message, and the program's line and frames only."""
    name = type(error).__name__
    text = str(error)
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == PROGRAM_FILE]
    line = frames[-1].lineno if frames else None
    column = None
    if isinstance(error, SyntaxError) and error.filename == PROGRAM_FILE:
        line, column = error.lineno, error.offset
        text = error.msg
    stack = ['Traceback (most recent call last):\n']
    for frame in frames:
        function = '<module>' if frame.name == '__program__' else frame.name
        stack.append(f'  File "{PROGRAM_FILE}", line {frame.lineno}, in {function}\n')
        if frame.line:
            stack.append(f'    {frame.line}\n')
    if isinstance(error, SyntaxError) and line is not None:
        source = linecache.getline(PROGRAM_FILE, line).rstrip('\n')
        stack.append(f'  File "{PROGRAM_FILE}", line {line}\n    {source.strip()}\n')
    stack.append(f'{name}: {text}' if text else name)
    where = f' (line {line})' if line is not None else ''
    described = {'name': name, 'message': f'{name}: {text}{where}' if text else f'{name}{where}', 'stack': ''.join(stack)}
    if line is not None:
        described['line'] = line
    if column is not None:
        described['column'] = column
    return described
