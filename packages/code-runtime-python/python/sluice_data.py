"""Modules the operator names (`preloadModules`: numpy, pandas, matplotlib, …), imported once in the zygote.

In the zygote, `preload` sets the numeric libraries' thread pools to `numericThreads` (before anything
loads them: OpenBLAS and OpenMP read their environment once, when the library is loaded), forces
matplotlib's Agg backend, imports each module, and returns the read-only paths the modules need that
the interpreter's own path does not cover (matplotlib's data and font directories; package
directories outside `sys.path`). In a child, `reseed` gives numpy's global generator a seed of the
run's own, and `collect_figures` renders the figures a program showed or left open as PNG images.
"""

import base64
import io
import os
import sys

#: The variables the numeric libraries read for the size of their thread pools, set before any is loaded.
THREAD_VARIABLES = (
    'OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS',
    'NUMEXPR_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS', 'GOTO_NUM_THREADS',
)  # fmt: skip

#: The most pixels one figure may have to be drawn (a 4096 × 4096 image): larger ones are listed, not drawn.
MAX_PIXELS = 4096 * 4096

#: Figures shown (`plt.show()`) during this run, in order: sent even when the program closed them afterwards.
_shown = []


def preload(modules, threads):
    """Imports `modules` in the zygote: (read paths they need, None) or ([], a sentence saying which failed and why)."""
    for name in THREAD_VARIABLES:
        os.environ[name] = str(threads)
    os.environ['MPLBACKEND'] = 'Agg'
    for name in modules:
        try:
            __import__(name)
        except BaseException as error:  # noqa: BLE001  (an extension that fails to load raises what it likes)
            return [], f'preloadModules: `import {name}` failed in {sys.executable}: {type(error).__name__}: {error}'
    paths = []
    for name in modules:
        module = sys.modules.get(name)
        for entry in (getattr(module, '__file__', None), *getattr(module, '__path__', ())):
            if entry:
                paths.append(entry if os.path.isdir(entry) else os.path.dirname(entry))
    if 'matplotlib' in sys.modules:
        paths += _prepare_matplotlib()
    return paths, None


def _prepare_matplotlib():
    """Agg, `plt.show()` recording its figures, and the directories matplotlib reads when it draws."""
    import matplotlib  # noqa: PLC0415  (only when the operator preloads it)

    matplotlib.use('Agg', force=True)
    paths = [matplotlib.get_data_path()]
    try:
        import matplotlib.pyplot as pyplot  # noqa: PLC0415
        from matplotlib import font_manager  # noqa: PLC0415
    except ImportError:
        return paths

    def show(*_args, **_kwargs):
        """Agg draws nowhere: the figures open now are sent with the run's result (see collect_figures)."""
        for number in pyplot.get_fignums():
            figure = pyplot.figure(number)
            if all(figure is not shown for shown in _shown):
                _shown.append(figure)

    pyplot.show = show
    # Fonts are opened when text is first drawn, from wherever the font list found them (Debian keeps
    # DejaVu in /usr/share/fonts, outside matplotlib's data directory).
    paths += [os.path.dirname(os.path.realpath(font.fname)) for font in font_manager.fontManager.ttflist]
    # Drawn once here, so each child finds the font and Agg's caches built.
    figure = pyplot.figure(figsize=(1, 1))
    figure.gca().set_title('warm')
    figure.savefig(io.BytesIO(), format='png')
    pyplot.close('all')
    # The fonts it opened hold file descriptors, which every child closes as it starts: each child opens its own.
    cache_clear = getattr(getattr(font_manager, '_get_font', None), 'cache_clear', None)
    if cache_clear is not None:
        cache_clear()
    import gc  # noqa: PLC0415

    gc.collect()
    return paths


def reseed(deterministic):
    """In a child: numpy's global generator (np.random.seed's) from the run's seed, or from the kernel's randomness.

    Every child is a copy of the zygote, so without this every run would draw the same numbers from
    `np.random.random()`. Generators made by `np.random.default_rng()` without a seed take their
    entropy from `secrets`, which a deterministic run already draws from its seed.
    """
    random = sys.modules.get('numpy.random')
    if random is None:
        return
    if deterministic is not None:
        random.seed(int(deterministic['seed']) % 2**32)
    else:
        random.seed(int.from_bytes(os.urandom(4), 'little'))


def collect_figures(limit, limit_bytes):
    """The figures the program showed or left open, as `[{"figure", "title", "type", "mimeType", "data"}]`, or None.

    Each is a PNG at the figure's own size and dpi, base64 in `data` (the shape code mode sends as
    image content). Past `limit` figures or `limit_bytes` of base64 in all, an entry has `omitted`
    saying why instead of the image. None when matplotlib is not loaded or there is no figure.
    """
    pyplot = sys.modules.get('matplotlib.pyplot')
    if pyplot is None:
        return None
    figures = list(_shown)
    _shown.clear()
    for number in pyplot.get_fignums():
        figure = pyplot.figure(number)
        if all(figure is not shown for shown in figures):
            figures.append(figure)
    if not figures:
        return None
    sent = []
    used = 0
    for index, figure in enumerate(figures, 1):
        entry = {'figure': index, 'title': _title(figure)}
        if len(sent) - sum('omitted' in item for item in sent) >= limit:
            entry['omitted'] = f'over the limit of {limit} figures a run'
            sent.append(entry)
            continue
        buffer = io.BytesIO()
        try:
            width, height = (float(side) * float(figure.dpi) for side in figure.get_size_inches())
            if width * height > MAX_PIXELS:
                entry['omitted'] = f'{round(width)}×{round(height)} pixels is over the {MAX_PIXELS} pixels a figure may have'
                sent.append(entry)
                continue
            figure.savefig(buffer, format='png')
        except Exception as error:  # noqa: BLE001  (the program's artists draw themselves)
            entry['omitted'] = f'drawing it failed: {type(error).__name__}: {error}'
            sent.append(entry)
            continue
        data = base64.b64encode(buffer.getvalue()).decode('ascii')
        if used + len(data) > limit_bytes:
            entry['omitted'] = f'its {len(data)} bytes of base64 PNG are over what is left of the {limit_bytes} bytes a run may send'
        else:
            used += len(data)
            entry.update({'type': 'image', 'mimeType': 'image/png', 'data': data})
        sent.append(entry)
    pyplot.close('all')
    return sent


def _title(figure):
    """The figure's suptitle, else its first axes' title, else ''."""
    try:
        suptitle = getattr(figure, '_suptitle', None)
        if suptitle is not None and suptitle.get_text():
            return suptitle.get_text()
        for axes in figure.axes:
            if axes.get_title():
                return axes.get_title()
    except Exception:  # noqa: BLE001, S110
        pass
    return ''
