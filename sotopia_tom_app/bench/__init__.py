"""The benchmark application: episode records, judging, the bench runner and its reports."""
