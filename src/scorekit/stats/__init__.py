"""Statistics shared by every family: bootstrap CIs, paired significance tests, correlation."""
