"""numpy and pandas values at the JSON boundary (see sluice_values and the README's table).

Only consulted for a value whose type is numpy's or pandas' (so only once a program imported them):

- a numpy bool, integer or float scalar: the Python bool, int or float (NaN and ±inf: null; -0.0: 0.0);
- `datetime64`: ISO 8601 text, as precise as the value needs (`"2026-01-05"`, `"2026-01-05T10:30"`); NaT: null;
- `timedelta64` and pandas `Timedelta`: seconds, a number; NaT: null;
- an `ndarray`: nested arrays of those; complex numbers are refused;
- a `Series`: an array of its values when its index is a plain range (0, 1, 2, …), else an object from
  each label (as text) to its value, or `[{"index": label, "value": value}, …]` when labels repeat;
- a `DataFrame`: records, `[{column: value, …}, …]`; an index that is not a plain range is kept as
  the first field(s) of each record, named as `reset_index()` names it (`"index"` when unnamed);
- an `Index`: an array; pandas `NA`, `NaT`, missing values in any column and masked items: null.
- refused, with the reason (`problem`): complex numbers, a frame whose column names repeat.
"""

import sys

#: Stands for null in sluice_values' table of converted values.
NULL = object()


def replacement(value):
    """What `value` crosses as, `NULL` for null, or None when it cannot cross (complex numbers, other types)."""
    numpy = sys.modules.get('numpy')
    pandas = sys.modules.get('pandas')
    if numpy is None:
        return None
    if pandas is not None:
        if isinstance(value, pandas.DataFrame):
            return _frame(value, numpy, pandas)
        if isinstance(value, pandas.Series):
            return _series(value, numpy, pandas)
        if isinstance(value, pandas.Index):
            return _column(value.to_numpy(), numpy, pandas)
        if isinstance(value, pandas.Timedelta):
            return value.total_seconds()
        if value is pandas.NA or value is pandas.NaT:
            return NULL
    if isinstance(value, numpy.ndarray):
        return _array(value, numpy, pandas)
    if isinstance(value, numpy.generic):
        return _scalar(value, numpy)
    return None


def _scalar(value, numpy):
    if isinstance(value, numpy.bool_):
        return bool(value)
    if isinstance(value, numpy.integer):
        return int(value)
    if isinstance(value, numpy.floating):
        number = float(value) + 0.0  # -0.0 crosses as 0.0 (JSON has no negative zero)
        return number if numpy.isfinite(number) else NULL
    if isinstance(value, numpy.datetime64):
        return NULL if numpy.isnat(value) else str(numpy.datetime_as_string(value, unit='auto'))
    if isinstance(value, numpy.timedelta64):
        return NULL if numpy.isnat(value) else float(value / numpy.timedelta64(1, 's'))
    if isinstance(value, numpy.str_):
        return str(value)
    return None


def problem(value):
    """Why a numpy or pandas value `replacement` refused cannot cross, and the fix; None for the generic sentence."""
    numpy = sys.modules.get('numpy')
    pandas = sys.modules.get('pandas')
    if pandas is not None and isinstance(value, pandas.DataFrame):
        names = [str(name) for name in value.columns]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            return f'is a DataFrame with repeated column names ({", ".join(repeated)}), which records cannot hold: rename them'
        return 'is a DataFrame with a column of complex numbers, which JSON cannot carry: split it into .real and .imag'
    if numpy is not None and getattr(getattr(value, 'dtype', None), 'kind', None) == 'c':
        return f'holds complex numbers ({type(value).__name__}), which JSON cannot carry: split them into .real and .imag'
    return None


def _array(array, numpy, pandas):
    if numpy.ma.isMaskedArray(array):
        items = numpy.asarray(array.data).astype(object)
        items[numpy.ma.getmaskarray(array)] = None  # masked items: null
        array = items
    if array.ndim == 0:
        return _scalar(array[()], numpy) if isinstance(array[()], numpy.generic) else array[()]
    if array.ndim > 1:
        rows = [_array(row, numpy, pandas) for row in array]
        return None if any(row is None for row in rows) else rows
    return _column(array, numpy, pandas)


def _column(array, numpy, pandas):
    """A 1-D array as a list of JSON-ready items (None for missing), or None for complex numbers."""
    kind = array.dtype.kind
    if kind == 'c':
        return None
    if kind == 'M':
        items = numpy.datetime_as_string(array, unit='auto').astype(object)
    elif kind == 'm':
        items = (array / numpy.timedelta64(1, 's')).astype(object)
    elif kind == 'f':
        items = (array + 0.0).astype(object)  # -0.0 crosses as 0.0 (JSON has no negative zero)
    else:
        items = array.astype(object)
    if pandas is not None:
        missing = pandas.isna(array)
    elif kind in 'fMm':
        missing = numpy.isnan(array)
    else:
        missing = None
    if kind == 'f':
        missing = numpy.logical_or(missing, numpy.isinf(array)) if missing is not None else numpy.isinf(array)
    if missing is not None and missing.any():
        items[missing] = None
    return items.tolist()


def _plain_range(index, pandas):
    return isinstance(index, pandas.RangeIndex) and index.start == 0 and index.step == 1


def _label(label):
    isoformat = getattr(label, 'isoformat', None)
    return isoformat() if callable(isoformat) else str(label)


def _series(series, numpy, pandas):
    values = _column(series.to_numpy(), numpy, pandas)
    if values is None or _plain_range(series.index, pandas):
        return values
    labels = series.index.tolist()
    if series.index.is_unique:
        return {_label(label): value for label, value in zip(labels, values)}
    return [{'index': _label(label), 'value': value} for label, value in zip(labels, values)]


def _frame(frame, numpy, pandas):
    if not _plain_range(frame.index, pandas):
        frame = frame.reset_index()
    names = [_label(name) if not isinstance(name, str) else name for name in frame.columns]
    if len(set(names)) != len(names):
        return None  # records would keep one of each (see `problem`)
    columns = []
    for position in range(frame.shape[1]):
        column = _column(frame.iloc[:, position].to_numpy(), numpy, pandas)
        if column is None:
            return None
        columns.append(column)
    return [dict(zip(names, row)) for row in zip(*columns)] if columns else [{} for _ in range(len(frame))]
