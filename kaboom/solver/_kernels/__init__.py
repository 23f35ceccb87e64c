"""The solver's compiled kernels (Cython, built at install time), one module for each
solver module that calls into C: :mod:`.counting` for :mod:`kaboom.solver.counting`,
:mod:`.frontier` for :mod:`kaboom.solver.frontier`, and so on.  Helpers two of them share
are inline functions in ``board.pxd`` and ``bits.pxd``."""
