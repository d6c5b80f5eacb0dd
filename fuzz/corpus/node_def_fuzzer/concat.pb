
cConcatV2abaxis^dep*
N*
T0*

Tidx0