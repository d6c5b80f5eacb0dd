
sSplitaxisx*
	num_split*
T0