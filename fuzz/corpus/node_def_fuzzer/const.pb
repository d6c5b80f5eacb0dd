
kConst*
dtype0*
valueB: