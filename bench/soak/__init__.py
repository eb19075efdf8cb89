"""Reliability checks run against the cardroom server: the fuzz soak (``bench/fuzz_soak.py``)
and the leak scan (``bench/leak_scan.py``).

``frames``   hostile frames, generated from a seeded ``random.Random``
``fuzzer``   the fuzzing connections and what they count
``honest``   honest players seated in a few rooms while the fuzzing goes on
``local``    a server of our own (with its embedded Redis), its log, the chip audit
``report``   the soak's result, its verdict and the printed summary
"""
