"""The arithmetic of AddValues: an xs:int sum, or an overflow the caller must report."""

from __future__ import annotations

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1

# ErrorCode values carried in the CalculationFailure detail (documented in docs/soap.md).
ERROR_OVERFLOW = 1


class CalculationOverflow(Exception):
    error_code = ERROR_OVERFLOW

    def __init__(self, first: int, second: int) -> None:
        super().__init__(
            f"The sum of {first} and {second} is outside the xs:int range [{INT_MIN}, {INT_MAX}]"
        )


def add_values(*, first: int, second: int) -> int:
    """first + second, which must itself be an xs:int (a 32-bit signed integer)."""
    result = first + second
    if not INT_MIN <= result <= INT_MAX:
        raise CalculationOverflow(first, second)
    return result
