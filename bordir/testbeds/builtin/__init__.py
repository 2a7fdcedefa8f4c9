"""The built-in testbeds of RGB (Chen et al., AAAI 2024), one module each, named like the testbed.

Each module registers one :class:`~bordir.testbeds.testbed.Testbed` when
imported; :data:`~bordir.testbeds.testbed.TESTBEDS` finds the modules of this
package and imports them on first use, so a new built-in testbed is one new file here.
"""
