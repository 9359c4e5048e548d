"""Building datasets: sampling items (`generate`) and writing their media (`media`)."""
