DROP TABLE template_tasks;
DROP TABLE template_sections;
DROP TABLE templates;
