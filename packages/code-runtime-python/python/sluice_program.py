"""The program as a module: the model's source compiled at module level, and errors in its own terms.

Top-level names are module globals, as in plain CPython (`global`, `globals()`), and top-level
`await` is allowed. What plain CPython refuses at module level but models write is rewritten on
the AST, never on the text, so every line number stays the model's own:

- `return x` at the top level raises `ProgramReturn(x)`, which ends the program with `x`;
- with no `return` reached, the last expression statement (also as the last statement of an
  `if __name__ == "__main__":` block) is the value, unless it is `None`;
- `asyncio.run(x)` or `loop.run_until_complete(x)` at the top level is `await x`, inside the
  program's own event loop;
- a program that only declares, and defines exactly one function it never calls (`async def
  main(): ...` alone), has that function called and its value returned; two such functions are
  refused, naming both;
- a host call written without `await` where its value is used is made at once (sluice_sync_calls);
- `final_answer(x)` (smolagents, Monty) ends the program with `x`, from anywhere: a bare `except:`
  or `except BaseException` lets it through, as one around a top-level `return` does.

A markdown fence around the whole program (```python … ```), or the tags an agent framework asks
its model to put around code (smolagents' `<code>…</code>` and the `<end_code>` after its older
prompts' fence, LlamaIndex CodeAct's `<execute>…</execute>`), is blanked line by line, so line
numbers do not move.
"""

import ast
import asyncio
import builtins
import inspect
import io
import linecache
import sys
import traceback

import sluice_sync_calls

#: The file name the program's code objects carry; tracebacks keep only frames from it.
PROGRAM_FILE = '<program>'

#: Names the rewritten program uses, found in the program's builtins (see `install`).
_RETURN = '__sluice_return__'
_RETURNING = '__sluice_returning__'

_EXCEPTION_GROUP = getattr(builtins, 'BaseExceptionGroup', None)


class ProgramReturn(BaseException):
    """A top-level `return` (or the final expression) on its way out of the program.

    A `BaseException`, so `except Exception` in the program does not catch it; a bare `except`
    or `except BaseException` around a top-level `return` re-raises it (see `_TopLevel`).
    """

    def __init__(self, value, final=False):
        super().__init__()
        self.value = value
        self.final = final

    def outcome(self):
        """(has_value, value): a final expression whose value is None gives no value."""
        return (not (self.final and self.value is None)), self.value


def _reraise_return():
    """First statement of a handler that may catch a top-level `return`: lets it through."""
    error = sys.exc_info()[1]
    if isinstance(error, ProgramReturn):
        raise error
    if _EXCEPTION_GROUP is not None and isinstance(error, _EXCEPTION_GROUP) and error.subgroup(ProgramReturn):
        raise error


def install(module):
    """Puts the names the rewritten program calls, and `final_answer`, into `module`, the program's builtins."""
    setattr(module, _RETURN, ProgramReturn)
    setattr(module, _RETURNING, _reraise_return)
    module.final_answer = final_answer


#: The value of the program's first `final_answer(...)`, once it has called it (one run per process).
_answered = []


def final_answer(answer=None):
    """Ends the program with `answer` as its value, as smolagents' and Monty's `final_answer` do.

    It raises `ProgramReturn`, so `finally` blocks run; the first answer given stays the value even
    where the program swallows it and goes on (`contextlib.suppress(BaseException)`, a thread, a task
    nobody awaits).
    """
    if not _answered:
        _answered.append(answer)
    raise ProgramReturn(answer)


class Program:
    """A compiled program: `code` runs in a globals dict; `is_coroutine` when it awaits at the top level."""

    def __init__(self, code):
        self.code = code
        self.is_coroutine = bool(code.co_flags & 0x80)  # CO_COROUTINE: top-level await


def returned(error):
    """The `ProgramReturn` that `error` is or carries (a group from `except*` or a TaskGroup), or None."""
    if isinstance(error, ProgramReturn):
        return error
    if _EXCEPTION_GROUP is not None and isinstance(error, _EXCEPTION_GROUP):
        matched = error.subgroup(ProgramReturn)
        while matched is not None and isinstance(matched, _EXCEPTION_GROUP):
            matched = matched.exceptions[0]
        return matched
    return None


def _syntax_error(message, node):
    error = SyntaxError(message)
    error.filename, error.lineno, error.offset = PROGRAM_FILE, node.lineno, node.col_offset + 1
    error.text = linecache.getline(PROGRAM_FILE, node.lineno)
    return error


def _call(name, arguments, like):
    """`name(*arguments)`, each new node at `like`'s location (so no pass over the whole tree is needed)."""
    function = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), like)
    return ast.copy_location(ast.Call(func=function, args=arguments, keywords=[]), like)


def _raise_return(value, node, final=False):
    arguments = [value] + ([ast.copy_location(ast.Constant(True), node)] if final else [])
    return ast.copy_location(ast.Raise(exc=_call(_RETURN, arguments, node), cause=None), node)


def _returning_guard(node):
    return ast.copy_location(ast.Expr(value=_call(_RETURNING, [], node)), node)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_TRIES = (ast.Try, getattr(ast, 'TryStar', ast.Try))


class _TopLevel:
    """Rewrites top-level statements, descending into compound statements but not into functions or classes.

    Statements only: the walk never visits the expressions of a large program, which keeps the
    rewrite a small part of its compile cost.
    """

    def __init__(self):
        self.returns = 0
        self.in_except_star = False

    def statements(self, body):
        for index, statement in enumerate(body):
            body[index] = self.statement(statement)
        return body

    def statement(self, node):
        if isinstance(node, _SCOPES):
            return node
        if isinstance(node, ast.Return):
            if self.in_except_star:
                raise _syntax_error("'break', 'continue' and 'return' cannot appear in an except* block", node)
            self.returns += 1
            value = node.value if node.value is not None else ast.copy_location(ast.Constant(None), node)
            return _raise_return(value, node)
        if isinstance(node, _TRIES):
            return self.try_statement(node, except_star=type(node).__name__ == 'TryStar')
        for field in ('body', 'orelse', 'finalbody'):
            statements = getattr(node, field, None)
            if statements:
                self.statements(statements)
        for case in getattr(node, 'cases', ()):
            self.statements(case.body)
        return node

    def try_statement(self, node, except_star):
        before = self.returns
        self.statements(node.body)
        guard = self.returns > before
        outer = self.in_except_star
        for handler in node.handlers:
            self.in_except_star = outer or except_star
            self.statements(handler.body)
            self.in_except_star = outer
            if guard:
                # A `return` in the body reaches these handlers as ProgramReturn; it must pass through.
                handler.body.insert(0, _returning_guard(handler.body[0]))
        self.statements(node.orelse)
        self.statements(node.finalbody)
        return node


class _AsyncioRun(ast.NodeTransformer):
    """`asyncio.run(x)` and `<loop>.run_until_complete(x)` → `await x`, outside functions, lambdas,
    classes and generator expressions: at the top level each has one reading, run `x` to its end."""

    def _leave(self, node):
        return node

    visit_FunctionDef = _leave
    visit_AsyncFunctionDef = _leave
    visit_Lambda = _leave
    visit_ClassDef = _leave
    visit_GeneratorExp = _leave

    def visit_Call(self, node):
        self.generic_visit(node)
        function = node.func
        if not isinstance(function, ast.Attribute) or len(node.args) != 1:
            return node
        asyncio_run = (
            function.attr == 'run'
            and isinstance(function.value, ast.Name)
            and function.value.id == 'asyncio'
            and all(keyword.arg == 'debug' for keyword in node.keywords)
        )
        if asyncio_run or (function.attr == 'run_until_complete' and not node.keywords):
            return ast.copy_location(ast.Await(value=node.args[0]), node)
        return node


def _is_main_guard(statement):
    """`if __name__ == "__main__":`, either way round."""
    if not isinstance(statement, ast.If) or not isinstance(statement.test, ast.Compare):
        return False
    test = statement.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [side for side in sides if isinstance(side, ast.Name) and side.id == '__name__']
    constants = [side for side in sides if isinstance(side, ast.Constant) and side.value == '__main__']
    return len(names) == 1 and len(constants) == 1


def _final_expression(body):
    """Makes the last expression statement of `body` (or of a final `__main__` block) the program's value."""
    if not body:
        return
    last = body[-1]
    if _is_main_guard(last):
        _final_expression(last.body)
    elif isinstance(last, ast.Expr):
        body[-1] = _raise_return(last.value, last, final=True)


_FENCE_TAGS = ('', 'python', 'py', 'python3')


#: Tags around the whole program, on lines of their own, and the line that closes each.
_CODE_TAGS = {'<code>': '</code>', '<execute>': '</execute>'}
#: What smolagents' older prompts put after the closing fence, on its line or the next.
_END_CODE = '<end_code>'


def _unfence(source):
    """`source` with a fence or code tags around the whole program blanked (lines kept), or as it is."""
    lines = source.split('\n')
    filled = [index for index, line in enumerate(lines) if line.strip()]
    if not filled:
        return source
    opening = lines[filled[0]].strip()
    if opening in _CODE_TAGS:
        closing = _CODE_TAGS[opening]
    elif opening[:3] in ('```', '~~~') and opening[3:].strip().lower() in _FENCE_TAGS:
        closing = opening[:3]
    else:
        return source
    lines[filled[0]] = ''
    rest = filled[1:]
    if rest and lines[rest[-1]].strip() == _END_CODE:
        lines[rest[-1]] = ''
        rest = rest[:-1]
    if rest:
        last = lines[rest[-1]].strip()
        if last.endswith(_END_CODE):
            last = last[: -len(_END_CODE)].rstrip()
        if last == closing:
            lines[rest[-1]] = ''
    return '\n'.join(lines)


_DECLARATIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign, ast.Pass)


def _call_lone_function(tree):
    """A program that only declares and never calls its one function gets that function called."""
    body = tree.body
    if not body or not all(isinstance(statement, _DECLARATIONS) or _is_docstring(statement) for statement in body):
        return
    functions = [statement for statement in body if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not functions:
        return
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    unused = [function for function in functions if function.name not in used]
    if len(unused) > 1:
        names = ', '.join(f'{function.name}()' for function in unused)
        raise _syntax_error(
            f'The program defines {names} and calls none of them, so it is not clear which one is the program: '
            f'end it with `return {_awaited(unused[0])}` (or the one you mean).',
            unused[-1],
        )
    if len(unused) != 1:
        return
    function = unused[0]
    arguments = function.args
    required = len(arguments.posonlyargs) + len(arguments.args) - len(arguments.defaults)
    required += sum(1 for default in arguments.kw_defaults if default is None)
    if required > 0:
        raise _syntax_error(
            f'The program defines {function.name}() and never calls it, and it needs arguments nothing passes: '
            f'call it yourself at the end, for example `return {_awaited(function, "...")}`.',
            function,
        )
    last = body[-1]
    call = _call(function.name, [], last)
    if isinstance(function, ast.AsyncFunctionDef):
        call = ast.copy_location(ast.Await(value=call), last)
    body.append(_raise_return(call, last, final=True))


def _guard_answers(tree):
    """Every handler that catches `BaseException` (bare `except:` too) lets an answer through, as one
    around a top-level `return` does (see `_TopLevel`): `final_answer` may be called in any function."""
    for node in ast.walk(tree):
        if not isinstance(node, _TRIES):
            continue
        for handler in node.handlers:
            if not _catches_everything(handler.type):
                continue
            first = handler.body[0]
            if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Call) and getattr(first.value.func, 'id', None) == _RETURNING):
                handler.body.insert(0, _returning_guard(first))


def _catches_everything(caught):
    if caught is None:
        return True
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any(getattr(name, 'id', getattr(name, 'attr', None)) == 'BaseException' for name in names)


def _awaited(function, arguments=''):
    """How to call `function` at the top level: `await main()` for a coroutine function, `main()` otherwise."""
    call = f'{function.name}({arguments})'
    return f'await {call}' if isinstance(function, ast.AsyncFunctionDef) else call


def _is_docstring(statement):
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)


def compile_program(source, bindings=None):
    """The program as a `Program`. Raises SyntaxError (or ValueError for a NUL byte).

    `bindings` (namespace → granted names) are the host functions whose calls without `await` are
    made at once where their value is used (see sluice_sync_calls).
    """
    source = _unfence(source)
    linecache.cache[PROGRAM_FILE] = (len(source), None, source.splitlines(True), PROGRAM_FILE)
    tree = ast.parse(source, PROGRAM_FILE, 'exec')
    if 'asyncio.run' in source or 'run_until_complete' in source:
        rewrite = _AsyncioRun()
        tree.body = [rewrite.visit(statement) for statement in tree.body]
    if bindings:
        namespaces, names = frozenset(bindings), {name for granted in bindings.values() for name in granted}
        if sluice_sync_calls.may_call_unawaited(source, namespaces, names):
            sluice_sync_calls.rewrite(tree, namespaces, names)
    if 'final_answer' in source:
        _guard_answers(tree)
    top_level = _TopLevel()
    top_level.statements(tree.body)
    if top_level.returns == 0:
        _call_lone_function(tree)
    _final_expression(tree.body)
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    return Program(compile(tree, PROGRAM_FILE, 'exec', flags=flags, dont_inherit=True))


def execute(program, program_globals, loop):
    """(has_value, value) from running `program` in `program_globals`; raises what the program raised.

    A program that awaits at the top level runs as one task in `loop`; any other runs as plain
    module code, outside the loop, so that `asyncio.run` in it runs in `loop` (see `_asyncio_run`).
    A value that is awaitable (`return tools.get(...)`, a final `main()` of an `async def`) is
    awaited in `loop` and its result is the value, as an async function's returned promise is in
    JavaScript. Once the program has called `final_answer`, its first answer is the value, however
    the program then ended.
    """
    try:
        if program.is_coroutine:
            loop.run_until_complete(eval(program.code, program_globals))  # noqa: S307  (the program is what we run)
        else:
            exec(program.code, program_globals)  # noqa: S102
    except BaseException as error:
        signal = returned(error)
        if signal is None and not _answered:
            raise
        has_value, value = (True, _answered[0]) if _answered else signal.outcome()
    else:
        if not _answered:
            return False, None
        has_value, value = True, _answered[0]  # caught by the program, which then went on to its end
    if has_value and inspect.isawaitable(value):
        value = loop.run_until_complete(value)
    return has_value, value


def patch_asyncio():
    """Run once in the zygote: the `asyncio.run` and `asyncio.new_event_loop` every program sees."""
    asyncio.run = _asyncio_run
    asyncio.new_event_loop = asyncio.events.new_event_loop = _new_event_loop


def _new_event_loop():
    """`asyncio.new_event_loop` for the program: host calls are answered only in its own loop (and
    seccomp refuses the socket pair a new loop needs), so it says what to write instead."""
    raise RuntimeError(
        'a program runs in an event loop of its own and cannot make another: write `await main()`, '
        'or `asyncio.run(main())`, which runs in the program\'s loop'
    )


def _asyncio_run(main, *, debug=None):
    """`asyncio.run` for the program: runs `main` in the program's own loop, where host calls are answered."""
    if asyncio._get_running_loop() is not None:
        raise RuntimeError(
            'asyncio.run() cannot be called from a running event loop: the program already runs in one, '
            'so write `await main()` instead of `asyncio.run(main())`'
        )
    if not asyncio.iscoroutine(main):
        raise ValueError(f'a coroutine was expected, got {main!r}')
    loop = asyncio.get_event_loop()  # the program's: the runner made it the current loop
    try:
        return loop.run_until_complete(main)
    finally:
        # As asyncio.run does: tasks the coroutine left running are cancelled, and wait for that.
        left = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in left:
            task.cancel()
        if left:
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))


_asyncio_run.__qualname__ = _asyncio_run.__name__ = 'run'


#: `BaseExceptionGroup` from CPython 3.11 (what an `asyncio.TaskGroup` raises); nothing is one before.
_GROUP = getattr(builtins, 'BaseExceptionGroup', ())
#: How many exceptions of a chain (`raise ... from`, or raised while handling another) the stack shows.
_CHAIN_LIMIT = 8
#: How many exceptions of a group the stack shows, and how deep into nested groups it looks.
_GROUP_SHOWN = 5
_GROUP_DEPTH = 3
_CAUSE = '\nThe above exception was the direct cause of the following exception:\n\n'
_CONTEXT = '\nDuring handling of the above exception, another exception occurred:\n\n'


def _text(error):
    """What CPython's traceback prints after the exception's name: `str(error)`, with the "Did you
    mean" suggestion CPython adds for a misspelt name or attribute."""
    try:
        text = str(error)
    except Exception:  # noqa: BLE001  (a __str__ that fails)
        text = '<exception str() failed>'
    text += _suggestion(error)
    if isinstance(error, ModuleNotFoundError):
        text += (
            ': only the Python standard library is available to a program (no third-party packages); '
            'use the granted host functions for anything else'
        )
    return text


def _notes(error):
    """The exception's notes (`add_note`), each on a line of its own after it, as CPython prints them."""
    notes = getattr(error, '__notes__', None)
    return ''.join(f'\n{note}' for note in notes if isinstance(note, str)) if isinstance(notes, (list, tuple)) else ''


def _suggestion(error):
    """`. Did you mean: 'total'?` as CPython's traceback offers it for a NameError or AttributeError, or ''.

    CPython 3.12 and later compute it in `traceback.TracebackException`; 3.10 and 3.11 only in the C
    code that prints a traceback (`sys.__excepthook__`), so there it is printed into a buffer and read back.
    """
    if not isinstance(error, (NameError, AttributeError)) or getattr(error, 'name', None) is None:
        return ''
    marker = ". Did you mean: '"
    try:
        if sys.version_info >= (3, 12):
            text = traceback.TracebackException(type(error), error, error.__traceback__, lookup_lines=False)._str
        else:
            saved, sys.stderr = sys.stderr, io.StringIO()
            try:
                sys.__excepthook__(type(error), error, error.__traceback__)
                text = sys.stderr.getvalue()
            finally:
                sys.stderr = saved
    except Exception:  # noqa: BLE001  (another CPython's internals, or a failing __dir__)
        return ''
    start = text.rfind(marker)
    end = text.find("'?", start + len(marker))
    return text[start : end + 2] if start != -1 and end != -1 else ''


def _program_frames(error):
    return [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == PROGRAM_FILE]


def _headline(error, text, line):
    where = f' (line {line})' if line is not None else ''
    name = type(error).__name__
    return (f'{name}: {text}{where}' if text else f'{name}{where}') + _notes(error)


def _traceback(error, depth=0):
    """One exception as CPython prints it, with only the program's frames; a group's exceptions after it."""
    name = type(error).__name__
    text = _text(error)
    lines = ['Traceback (most recent call last):\n']
    for frame in _program_frames(error):
        lines.append(f'  File "{PROGRAM_FILE}", line {frame.lineno}, in {frame.name}\n')
        if frame.line:
            lines.append(f'    {frame.line}\n')
    if isinstance(error, SyntaxError) and error.filename == PROGRAM_FILE and error.lineno is not None:
        source = linecache.getline(PROGRAM_FILE, error.lineno).rstrip('\n')
        lines.append(f'  File "{PROGRAM_FILE}", line {error.lineno}\n    {source.strip()}\n')
        text = error.msg
    lines.append((f'{name}: {text}' if text else name) + _notes(error) + '\n')
    members = getattr(error, 'exceptions', ()) if isinstance(error, _GROUP) else ()
    if depth < _GROUP_DEPTH:
        for index, member in enumerate(members[:_GROUP_SHOWN], 1):
            lines.append(f'+---------------- {index} of {len(members)} ----------------\n')
            lines.extend(f'| {part}' for part in _traceback(member, depth + 1).splitlines(keepends=True))
    return ''.join(lines)


def _chain(error):
    """The exceptions CPython would print for `error`, oldest first, each with the words that join it
    to the one printed after it (`''` for `error` itself)."""
    chain, seen, link = [], set(), ''
    while error is not None and id(error) not in seen and len(chain) < _CHAIN_LIMIT:
        seen.add(id(error))
        # Reached through `link`: printed before the exception that led here, joined by those words.
        chain.append((error, link))
        if error.__cause__ is not None:
            error, link = error.__cause__, _CAUSE
        elif error.__context__ is not None and not error.__suppress_context__:
            error, link = error.__context__, _CONTEXT
        else:
            error = None
    return chain[::-1]


def _first_failure(error, depth=0):
    """The first exception inside an exception group (depth first), for the message; `error` otherwise."""
    while isinstance(error, _GROUP) and getattr(error, 'exceptions', ()) and depth < _GROUP_DEPTH:
        error, depth = error.exceptions[0], depth + 1
    return error


def describe_error(error):
    """The `error` object of a failed `done` frame: name, message, and the program's line and frames only.

    The message is CPython's last traceback line, with its "Did you mean" suggestion, and the line;
    for an exception group (`asyncio.TaskGroup`) it also names the first exception inside it, with
    its line. The stack is the traceback CPython prints, keeping only the program's frames: the
    exceptions a `raise ... from` or an exception while handling another chained to it (up to 8),
    and those inside a group (5 a group, 3 levels).
    """
    frames = _program_frames(error)
    line = frames[-1].lineno if frames else None
    column = None
    text = _text(error)
    if isinstance(error, SyntaxError) and error.filename == PROGRAM_FILE:
        line, column = error.lineno, error.offset
        text = error.msg
    message = _headline(error, text, line)
    inner = _first_failure(error)
    if inner is not error:
        inner_frames = _program_frames(inner)
        count = len(error.exceptions)
        first = 'its only exception' if count == 1 else f'the first of its {count} exceptions'
        message += f'; {first}: {_headline(inner, _text(inner), inner_frames[-1].lineno if inner_frames else None)}'
    stack = ''.join(_traceback(exception) + link for exception, link in _chain(error)).rstrip('\n')
    described = {'name': type(error).__name__, 'message': message, 'stack': stack}
    if line is not None:
        described['line'] = line
    if column is not None:
        described['column'] = column
    return described
