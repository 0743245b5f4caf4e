"""roceconf: a lossless RoCEv2 fabric config compiler and drift checker."""

__version__ = "0.1.0"
