
i	IdentityNab:1*
T
2
