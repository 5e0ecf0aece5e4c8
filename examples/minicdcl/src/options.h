/* minicdcl's options: OPTION (name, default, low, high, "help"), the layout the SATLUTION tuner reads. */
#define OPTIONS \
  OPTION (restartint, 100, 1, 100000, "conflicts per Luby restart unit") \
  OPTION (decay, 95, 50, 99, "variable activity decay in percent") \
  OPTION (phase, 0, 0, 1, "initial phase (0 = false, 1 = true)")
