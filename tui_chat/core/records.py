"""Records: plain dataclasses, validated by pydantic only where input comes in.

The records the app holds (core.models, core.config, core.model_facts) are dataclasses based on
`Record`. tui-chat's own code constructs them directly: the values are its own, there is
nothing to check, and a constructor validates nothing (as pydantic's `model_construct`). Input
from outside (config.toml, store rows, imports, a provider's answers) goes through
`model_validate`, which builds the record's pydantic validator on first use (a TypeAdapter
over the dataclass: the same core validators a BaseModel gets). So pydantic is imported when
the first input is validated, never on import. Importing it and defining the records as
BaseModels was a fifth of the instructions to the app's first frame
(benchmarks/instruction_phases.py), where nothing is validated.

The methods keep pydantic's names and meanings (model_validate, model_dump, model_copy, ...),
so the records read as the BaseModels they replaced. What a `Field(ge=...)` or a
`field_validator` said is said in `Annotated[...]` by `Bounds`, `Before` and `After`, which
hand pydantic the very same constraint or function when it builds the validator; a record's
`problem()` is its check of the whole (pydantic's `model_validator(mode="after")`); its
`__pydantic_config__` is pydantic's `model_config` (`{"extra": "forbid"}`).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Self, TypeVar

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler, TypeAdapter, ValidationInfo
    from pydantic_core import CoreSchema

R = TypeVar("R", bound="Record")
_MISSING = dataclasses.MISSING
_adapters: dict[type[Any], TypeAdapter[Any]] = {}
_fields: dict[type[Any], dict[str, FieldSpec]] = {}


def adapter(record: type[R]) -> TypeAdapter[R]:
    """The record's validator, built on first use (pydantic imported then)."""
    found = _adapters.get(record)
    if found is None:
        from pydantic import TypeAdapter

        found = _adapters[record] = TypeAdapter(record)
    return found


def built(record: type[Record]) -> bool:
    """Whether `record`'s validator has been built."""
    return record in _adapters


class _Constraints:
    """Constraints pydantic's `Field(...)` takes, handed to it when it builds the validator."""

    __slots__: tuple[str, ...] = ()

    def constraints(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__
                if getattr(self, name) is not None}

    def __get_pydantic_core_schema__(self, source: Any,
                                     handler: GetCoreSchemaHandler) -> CoreSchema:
        from pydantic import Field

        return handler(Annotated[source, Field(**self.constraints())])


class Bounds(_Constraints):
    """A number's bounds, as `Field(ge=, gt=, le=, lt=, allow_inf_nan=)`."""

    __slots__ = ("allow_inf_nan", "ge", "gt", "le", "lt")

    def __init__(self, *, ge: float | None = None, gt: float | None = None,
                 le: float | None = None, lt: float | None = None,
                 allow_inf_nan: bool | None = None) -> None:
        self.ge, self.gt, self.le, self.lt = ge, gt, le, lt
        self.allow_inf_nan = allow_inf_nan


class Text(_Constraints):
    """A string's length and pattern, as `Field(min_length=, max_length=, pattern=)`."""

    __slots__ = ("max_length", "min_length", "pattern")

    def __init__(self, *, min_length: int | None = None, max_length: int | None = None,
                 pattern: str | None = None) -> None:
        self.min_length, self.max_length, self.pattern = min_length, max_length, pattern


class Before:
    """`function` runs on the raw value before pydantic's checks (a `mode="before"` field
    validator); it returns the value to check, or raises ValueError."""

    __slots__ = ("function",)

    def __init__(self, function: Callable[[Any], Any]) -> None:
        self.function = function

    def __get_pydantic_core_schema__(self, source: Any,
                                     handler: GetCoreSchemaHandler) -> CoreSchema:
        from pydantic_core import core_schema

        return core_schema.no_info_before_validator_function(self.function, handler(source))


class After:
    """`function` runs on the checked value (a field validator); it returns the value to keep,
    or raises ValueError. With `with_data`, it also gets the fields validated before this one
    (pydantic's `info.data`)."""

    __slots__ = ("function", "with_data")

    def __init__(self, function: Callable[..., Any], *, with_data: bool = False) -> None:
        self.function, self.with_data = function, with_data

    def __get_pydantic_core_schema__(self, source: Any,
                                     handler: GetCoreSchemaHandler) -> CoreSchema:
        from pydantic_core import core_schema

        if self.with_data:
            function = self.function

            def with_data(value: Any, info: ValidationInfo) -> Any:
                return function(value, info.data)

            return core_schema.with_info_after_validator_function(with_data, handler(source))
        return core_schema.no_info_after_validator_function(self.function, handler(source))


class FieldSpec:
    """A record's field as pydantic's `model_fields` describe one: its type (without
    `Annotated`), the constraints and checks annotated on it, and its default
    (`dataclasses.MISSING` for none, or one made by a factory)."""

    __slots__ = ("annotation", "default", "metadata", "name")

    def __init__(self, name: str, annotation: Any, metadata: list[Any], default: Any) -> None:
        self.name, self.annotation, self.metadata, self.default = (
            name, annotation, metadata, default)


class _Fields:
    """`Record.model_fields`: read from the dataclass's fields when first asked."""

    def __get__(self, instance: object, owner: type[Record]) -> Mapping[str, FieldSpec]:
        found = _fields.get(owner)
        if found is None:
            hints = typing.get_type_hints(owner, include_extras=True)
            found = {}
            for item in dataclasses.fields(owner):  # type: ignore[arg-type]
                hint = hints[item.name]
                metadata: list[Any] = []
                if typing.get_origin(hint) is Annotated:
                    hint, *metadata = typing.get_args(hint)
                found[item.name] = FieldSpec(item.name, hint, metadata, item.default)
            _fields[owner] = found
        return found


@typing.dataclass_transform(kw_only_default=True, field_specifiers=(dataclasses.field,))
class Record:
    """The base of tui-chat's records: each subclass is a dataclass (keyword-only fields,
    `field(default_factory=...)` for a mutable default) whose `__init__`, `__repr__` and
    `__eq__` are Record's own, not generated: a dataclass compiles generated code for each (an
    exec a method), ten times the cost of the rest of it, paid before the first frame."""

    __slots__ = ()
    model_fields: ClassVar[_Fields] = _Fields()
    _defaults: ClassVar[tuple[tuple[str, Any, Any], ...]] = ()
    """(name, default, default factory) of each field, in order (MISSING where none)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(init=False, repr=False, eq=False, kw_only=True)(cls)
        cls._defaults = tuple((item.name, item.default, item.default_factory)
                              for item in dataclasses.fields(cls))  # type: ignore[arg-type]

    def __init__(self, **values: Any) -> None:
        """What a dataclass's `__init__` does: each field from `values`, its default or its
        factory; TypeError for one missing or unknown."""
        state = self.__dict__
        for name, default, factory in self._defaults:
            value = values.pop(name, _MISSING)
            if value is _MISSING:
                if default is not _MISSING:
                    value = default
                elif factory is not _MISSING:
                    value = factory()
                else:
                    raise TypeError(f"{type(self).__qualname__}.__init__() missing 1 required "
                                    f"keyword-only argument: '{name}'")
            state[name] = value
        if values:
            raise TypeError(f"{type(self).__qualname__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(values))}'")

    def __repr__(self) -> str:
        state = self.__dict__
        shown = ", ".join(f"{name}={state[name]!r}" for name, _, _ in self._defaults)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.__dict__ == other.__dict__

    def problem(self) -> str | None:
        """Why the record as a whole cannot be (its fields each valid), else None."""
        return None

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any,
                                     handler: GetCoreSchemaHandler) -> CoreSchema:
        schema = handler(source)
        if cls.problem is Record.problem:
            return schema
        from pydantic_core import core_schema

        def checked(record: Record) -> Record:
            problem = record.problem()
            if problem is not None:
                raise ValueError(problem)
            return record

        return core_schema.no_info_after_validator_function(checked, schema)

    @classmethod
    def model_validate(cls, data: object) -> Self:
        """`data` (a mapping, or a record already) checked and converted; ValidationError."""
        return adapter(cls).validate_python(data)

    @classmethod
    def model_validate_json(cls, data: str | bytes) -> Self:
        return adapter(cls).validate_json(data)

    def model_dump(self, *, mode: Literal["python", "json"] = "python",
                   exclude: set[str] | None = None, exclude_none: bool = False
                   ) -> dict[str, Any]:
        dumped: dict[str, Any] = adapter(type(self)).dump_python(
            self, mode=mode, exclude=exclude, exclude_none=exclude_none)
        return dumped

    def model_dump_json(self, *, exclude_none: bool = False) -> str:
        return adapter(type(self)).dump_json(self, exclude_none=exclude_none).decode()

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Self:
        """A shallow copy, with `update`'s values (not validated, as pydantic's)."""
        copied = object.__new__(type(self))
        copied.__dict__.update(self.__dict__)
        if update:
            copied.__dict__.update(update)
        return copied
