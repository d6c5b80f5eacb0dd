
addAddxy*
T0