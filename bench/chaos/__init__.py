"""The chaos soak's parts (``bench/chaos_soak.py`` runs them): the processes and their
relays (:mod:`.topology`), the players (:mod:`.players`), the faults and their scheduler
(:mod:`.faults`), the checks (:mod:`.checks`) and the report (:mod:`.report`)."""
