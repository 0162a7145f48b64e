"""The numba kernels of :mod:`matchdb.equity` (private: call the public functions of the package's modules)."""
