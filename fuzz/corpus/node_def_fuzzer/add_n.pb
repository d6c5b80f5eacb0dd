
nAddNabc*
N*
T0*
_class

loc:@a