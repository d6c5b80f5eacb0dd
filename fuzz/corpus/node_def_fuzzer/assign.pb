
asAssignvx*
T0*
use_locking(