"""Host calls written without `await`, as smolagents and Monty programs call tools: where the program
uses the value, the call is made at once, blocking until the host answers (HostCall.now).

The rewrite makes such a call `__sluice_sync__(tools.get, ...)`, on the AST, so line numbers stay the
model's. A call stays a coroutine, made when it is awaited as before, where the program treats it as one:

- awaited: `await tools.get(...)`;
- an awaitable handed to a scheduler (`asyncio.gather`, `create_task`, `ensure_future`, `wait`,
  `wait_for`, `shield`, `as_completed`, `run_until_complete`, `asyncio.run`, `asyncio.Task`), as itself
  or inside a list, tuple, set, dict or comprehension there;
- stored the same way in a name (or attribute, or item) that the program awaits or hands to a
  scheduler somewhere (`tasks = [tools.get(id=i) for i in ids]` ... `gather(*tasks)`), appended to
  one (`tasks.append(tools.get(...))`), or returned by a plain function whose results it awaits or
  schedules (`def fetch(c): return tools.get(city=c)` ... `gather(*map(fetch, cities))`).

Only calls spelled `<namespace>.<name>(...)` or `<bare tool name>(...)` are recognised; a call reached
any other way (`getattr(tools, name)(...)`) keeps the old behaviour, an error naming the call when its
value is used. `__sluice_sync__` returns anything but an unmade host call as it is, so a name the
program rebinds to its own function is not affected.
"""

import ast

#: The builtin the rewritten program calls (see sluice_host_calls.call_now).
SYNC = '__sluice_sync__'

#: Functions and methods that take coroutines and run them, by the name they are called by.
_SCHEDULERS = frozenset(
    ('gather', 'create_task', 'ensure_future', 'wait', 'wait_for', 'shield', 'as_completed', 'run_until_complete')
    + ('run_coroutine_threadsafe',)
)
#: Schedulers recognised only as `asyncio.<name>`: the words are too common on their own.
_ASYNCIO_SCHEDULERS = frozenset(('run', 'Task'))
#: Methods that put their arguments into the container they are called on.
_STORING = frozenset(('append', 'extend', 'add', 'insert', 'appendleft', 'extendleft', 'put_nowait', 'setdefault', 'update'))
#: Methods whose result hands on what the container holds (`gather(*tasks.values())`).
_HANDING_ON = frozenset(('values', 'copy', 'pop', 'popleft'))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def may_call_unawaited(source, namespaces, names):
    """Whether `source` may call a host function without `await`: a look at the text that lets a program
    awaiting every call skip the walk of its tree. Each namespace or name written as a word, not after a
    `.`, must follow `await` (or `await (`). It may say yes wrongly, never no: every call the rewrite
    recognises starts with such a word. (A regular expression over every call cost each run ~20 more
    copied pages, measured.)"""
    for words in (namespaces, names):
        for word in words:
            found = source.find(word)
            while found != -1:
                end = found + len(word)
                before = source[found - 1] if found > 0 else ' '
                after = source[end] if end < len(source) else ' '
                if not (before.isalnum() or before in '_.' or after.isalnum() or after == '_'):
                    if not source[max(0, found - 64) : found].rstrip(' \t\r\n(').endswith('await'):
                        return True
                found = source.find(word, end)
    return False


def rewrite(tree, namespaces, names):
    """Makes each host call in `tree` that is not treated as a coroutine a call of `__sluice_sync__`.

    `tools.get(a, b=1)` becomes `__sluice_sync__(tools.get, a, b=1)`, in place: the call keeps its node
    and location, and evaluates its function and arguments in the same order. `namespaces` are the
    bound namespaces, `names` every granted function name (bare names included: an over-approximation
    is harmless, see the module's docstring). One walk of the tree; returns how many calls it changed.
    """
    survey = _Survey(namespaces, names)
    survey.walk(tree)
    lazy = survey.lazy_calls()
    changed = 0
    for call in survey.host_calls:
        if id(call) not in lazy:
            call.args.insert(0, call.func)
            call.func = ast.copy_location(ast.Name(id=SYNC, ctx=ast.Load()), call.func)
            changed += 1
    return changed


def _is_scheduler(function):
    if isinstance(function, ast.Name):
        return function.id in _SCHEDULERS
    if isinstance(function, ast.Attribute):
        if function.attr in _SCHEDULERS:
            return True
        return function.attr in _ASYNCIO_SCHEDULERS and isinstance(function.value, ast.Name) and function.value.id == 'asyncio'
    return False


def _flow(node):
    """The expressions whose values `node` hands on as they are: itself, or what a display,
    comprehension, starred or conditional expression, lambda or `map(f, ...)` holds or makes."""
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            stack.extend(node.elts)
        elif isinstance(node, ast.Dict):
            stack.extend(node.values)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            stack.append(node.elt)
        elif isinstance(node, ast.DictComp):
            stack.append(node.value)
        elif isinstance(node, (ast.Starred, ast.NamedExpr)):
            stack.append(node.value)
        elif isinstance(node, ast.IfExp):
            stack.extend((node.body, node.orelse))
        elif isinstance(node, ast.Lambda):
            stack.append(node.body)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == 'map' and node.args:
            stack.append(node.args[0])
        else:
            yield node


def _key(node):
    """What holds the value `node` reads: `tasks`, `self.tasks` (an item reads its container); for a call,
    the function it calls, or the container `tasks.values()` hands on; else None."""
    if isinstance(node, ast.Call):
        function = node.func
        if isinstance(function, ast.Name):
            return function.id
        if isinstance(function, ast.Attribute) and function.attr in _HANDING_ON:
            return _key(function.value)
        return None
    while isinstance(node, ast.Subscript):
        node = node.value
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return '.'.join(reversed(parts))


class _Survey:
    """What one walk of the tree finds: the host calls, and where the program awaits, schedules,
    stores and returns values (all that `lazy_calls` needs, so the tree is walked once)."""

    def __init__(self, namespaces, names):
        self.namespaces = namespaces
        self.names = names
        self.host_calls = []
        self.awaited = []  # what `await` is applied to
        self.scheduled = []  # arguments of scheduler calls
        self.loops = []  # (target, iterable) of `for` statements and comprehensions
        self.stored = []  # (where, value): assignments, and the arguments of storing methods
        self.functions = []  # plain functions, whose returned values flow to their callers

    def walk(self, tree):
        for node in _nodes(tree):
            kind = type(node)
            if kind is ast.Call:
                function = node.func
                if self._is_host_call(function):
                    self.host_calls.append(node)
                elif _is_scheduler(function):
                    self.scheduled.extend(node.args)
                    self.scheduled.extend(keyword.value for keyword in node.keywords)
                elif type(function) is ast.Attribute and function.attr in _STORING:
                    self.stored.extend((function.value, argument) for argument in node.args)
            elif kind is ast.Await:
                self.awaited.append(node.value)
            elif kind is ast.Assign:
                self.stored.extend((target, node.value) for target in node.targets)
            elif kind is ast.AugAssign or kind is ast.AnnAssign or kind is ast.NamedExpr:
                if node.value is not None:
                    self.stored.append((node.target, node.value))
            elif kind is ast.For or kind is ast.AsyncFor or kind is ast.comprehension:
                self.loops.append((node.target, node.iter))
            elif kind is ast.FunctionDef:
                self.functions.append(node)

    def _is_host_call(self, function):
        kind = type(function)
        if kind is ast.Name:
            return function.id in self.names
        return kind is ast.Attribute and type(function.value) is ast.Name and function.value.id in self.namespaces

    def lazy_calls(self):
        """The ids of the call nodes the program treats as coroutines (see the module's docstring)."""
        scheduled = self._scheduled_keys()
        lazy = set()

        def hold(value):
            lazy.update(id(held) for held in _flow(value) if type(held) is ast.Call)

        for value in self.awaited:
            hold(value)
        for value in self.scheduled:
            hold(value)
        for where, value in self.stored:
            if _key(where) in scheduled:
                hold(value)
        for function in self.functions:
            if function.name in scheduled:
                for returned in _returned(function):
                    hold(returned)
        return lazy

    def _scheduled_keys(self):
        """The keys (see `_key`) whose values the program awaits or hands to a scheduler, directly or by iterating them."""
        keys = {_key(held) for value in (*self.awaited, *self.scheduled) for held in _flow(value)}
        sources = {}  # a loop variable's key → the keys of what it iterates
        for target, iterable in self.loops:
            key = _key(target)
            if key is not None:
                sources.setdefault(key, set()).update(_key(held) for held in _flow(iterable))
        keys.discard(None)
        work = list(keys)
        while work:
            for source in sources.pop(work.pop(), ()):
                if source is not None and source not in keys:
                    keys.add(source)
                    work.append(source)
        return keys


#: Leaves the survey never looks at itself (their parents are what it reads), left out of the walk.
_LEAVES = (ast.expr_context, ast.Constant, ast.Name)


def _nodes(tree):
    """Every node of `tree` but the leaves in _LEAVES: `ast.walk` without them, in any order, a third of its time."""
    stack = [tree]
    node_type, leaves = ast.AST, _LEAVES
    while stack:
        node = stack.pop()
        yield node
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(item for item in value if isinstance(item, node_type) and not isinstance(item, leaves))
            elif isinstance(value, node_type) and not isinstance(value, leaves):
                stack.append(value)


def _returned(function):
    """The values `function` returns or yields, not those of functions, lambdas or classes inside it."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)) and node.value is not None:
            yield node.value
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _SCOPES):
                stack.append(child)
