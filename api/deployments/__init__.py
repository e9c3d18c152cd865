"""Deployments: a stored DeploymentPlan per vCenter; plan (diff), apply and destroy it as jobs."""
